import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A resolved IPv4 or IPv6 socket address kept as bytes, to bind listening sockets to.
struct SocketAddress {
    var storage = sockaddr_storage()

    /// An empty address, to be filled in by a system call.
    init() {}

    /// Resolves `host` (a literal or a name) for listening on `port`.
    init?(host: String, port: Int) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(
                from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
    }

    /// Whether this is an IPv6 address (else IPv4).
    var isIPv6: Bool { Int32(storage.ss_family) == AF_INET6 }

    /// The port, in host byte order.
    var port: Int {
        get {
            withUnsafeBytes(of: storage) { bytes in
                isIPv6
                    ? Int(UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port))
                    : Int(UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port))
            }
        }
        set {
            let port = UInt16(truncatingIfNeeded: newValue).bigEndian
            let ipv6 = isIPv6
            withUnsafeMutableBytes(of: &storage) { bytes in
                if ipv6 {
                    var address = bytes.load(as: sockaddr_in6.self)
                    address.sin6_port = port
                    bytes.storeBytes(of: address, as: sockaddr_in6.self)
                } else {
                    var address = bytes.load(as: sockaddr_in.self)
                    address.sin_port = port
                    bytes.storeBytes(of: address, as: sockaddr_in.self)
                }
            }
        }
    }

    /// `host:port` (IPv6 in brackets) for a peer address given by libmicrohttpd.
    static func describe(_ address: UnsafePointer<sockaddr>) -> String? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                describe(
                    ipv4: UInt32(bigEndian: v4.pointee.sin_addr.s_addr), port: UInt16(bigEndian: v4.pointee.sin_port))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var ip = v6.pointee.sin6_addr
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
                guard inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count)) != nil else { return nil }
                return
                    "[\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))]:\(UInt16(bigEndian: v6.pointee.sin6_port))"
            }
        default:
            return nil
        }
    }

    /// `a.b.c.d:port`, written on the stack and made a string once: this runs for every
    /// request, and a result of 15 bytes or fewer (any loopback peer) is a small string, with no
    /// allocation.
    static func describe(ipv4 address: UInt32, port: UInt16) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
            var count = 0
            func write(_ number: UInt32) {
                var divisor: UInt32 = 1
                while divisor * 10 <= number { divisor *= 10 }
                while divisor > 0 {
                    buffer[count] = UInt8(ascii: "0") + UInt8(number / divisor % 10)
                    count += 1
                    divisor /= 10
                }
            }
            for shift in [24, 16, 8, 0] as [UInt32] {
                write(address >> shift & 0xFF)
                buffer[count] = shift == 0 ? UInt8(ascii: ":") : UInt8(ascii: ".")
                count += 1
            }
            write(UInt32(port))
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }
}
