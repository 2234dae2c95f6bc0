import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One listening socket per server thread, all bound to the same address and port with
/// `SO_REUSEPORT`, so that the kernel spreads incoming connections over the threads.
///
/// Why not one socket watched by a libmicrohttpd thread pool: the pool thread that wakes first
/// takes every pending connection, up to ten in a row, so a client opening a few connections at
/// once (a proxy's keep-alive pool, a load generator) often has all of them pinned to one
/// thread while the other cores idle (measured: Benchmarks/README.md).
///
/// `SO_REUSEPORT` would also let a second server of the same user join the port silently, so
/// the port is first claimed by a probe socket without it: a port in use fails there, with the
/// system's reason.
struct ListeningSockets {
    /// The listening sockets, one per thread; closed by the server after its daemons stop.
    let descriptors: [Int32]
    /// The bound port (the kernel's choice when asked for `0`).
    let port: Int

    /// Binds `count` sockets to `address` (whose port may be `0`) and listens on them.
    ///
    /// A port of `0` is tried up to three times: between the probe and the shared binds,
    /// another socket (a client's connection, say) may take the port the kernel chose.
    ///
    /// - Throws: ``HTTPServerError`` naming `host`, `requestedPort` and the system's reason.
    init(address: SocketAddress, count: Int, host: String, requestedPort: Int) throws(HTTPServerError) {
        var attemptsLeft = requestedPort == 0 ? 3 : 1
        while true {
            do throws(HTTPServerError) {
                self = try Self(bindingOnce: address, count: count, host: host, requestedPort: requestedPort)
                return
            } catch {
                attemptsLeft -= 1
                if attemptsLeft == 0 { throw error }
            }
        }
    }

    private init(bindingOnce address: SocketAddress, count: Int, host: String, requestedPort: Int)
        throws(HTTPServerError)
    {
        func failure() -> HTTPServerError {
            .bindFailed(host: host, port: requestedPort, reason: String(cString: strerror(errno)))
        }
        // The probe: an exclusive bind, which fails when anything listens on the port.
        let probe = try Self.boundSocket(address, sharingPort: false, orThrow: failure)
        guard let port = Self.boundPort(of: probe) else {
            let error = failure()
            close(probe)
            throw error
        }
        close(probe)
        var address = address
        address.port = port
        var descriptors: [Int32] = []
        for _ in 0..<count {
            do throws(HTTPServerError) {
                let socket = try Self.boundSocket(address, sharingPort: true, orThrow: failure)
                descriptors.append(socket)
                guard listen(socket, SOMAXCONN) == 0 else { throw failure() }
            } catch {
                descriptors.forEach { close($0) }
                throw error
            }
        }
        self.descriptors = descriptors
        self.port = port
    }

    private static func boundSocket(
        _ address: SocketAddress, sharingPort: Bool, orThrow failure: () -> HTTPServerError
    ) throws(HTTPServerError) -> Int32 {
        var address = address
        #if canImport(Glibc)
        let socket = Glibc.socket(
            Int32(address.storage.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let socket = Darwin.socket(Int32(address.storage.ss_family), SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw failure() }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        // Restarts may bind at once, even with connections of the last run in TIME_WAIT.
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, size)
        if sharingPort { setsockopt(socket, SOL_SOCKET, SO_REUSEPORT, &on, size) }
        // An IPv6 address means that address only, never the IPv4 ones as well.
        if address.isIPv6 { setsockopt(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, size) }
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address.storage) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 }
        }
        guard bound else {
            let error = failure()
            close(socket)
            throw error
        }
        return socket
    }

    private static func boundPort(of socket: Int32) -> Int? {
        var bound = SocketAddress()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound.storage) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) == 0 }
        }
        return named ? bound.port : nil
    }
}
