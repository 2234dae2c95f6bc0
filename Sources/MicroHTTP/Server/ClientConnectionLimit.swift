import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A client's IP address, without its port: what the per-client connection limit counts by.
/// IPv4 addresses are kept as IPv4-mapped IPv6 ones, so each address has one form.
struct ClientAddress: Hashable, Sendable {
    private let high: UInt64
    private let low: UInt64

    /// The IP of `address`, or `nil` for a family other than IPv4 and IPv6.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            // As the IPv4-mapped IPv6 address ::ffff:a.b.c.d, byte for byte.
            var mapped = in6_addr()
            var ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            withUnsafeMutableBytes(of: &mapped) { raw in
                raw[10] = 0xFF
                raw[11] = 0xFF
                withUnsafeBytes(of: &ip) {
                    raw.baseAddress!.advanced(by: 12).copyMemory(from: $0.baseAddress!, byteCount: 4)
                }
            }
            (high, low) = Self.words(of: &mapped)
        case AF_INET6:
            var bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            (high, low) = Self.words(of: &bytes)
        default:
            return nil
        }
    }

    private static func words(of address: inout in6_addr) -> (UInt64, UInt64) {
        withUnsafeBytes(of: &address) { raw in
            (
                raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            )
        }
    }

    /// The address `ip` spells (`10.0.0.1`, `::1`), or `nil` when it is not an IP address.
    init?(ip: String) {
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                v4.pointee.sin_family = sa_family_t(AF_INET)
                return inet_pton(AF_INET, ip, &v4.pointee.sin_addr) == 1
            }
                || pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    v6.pointee.sin6_family = sa_family_t(AF_INET6)
                    return inet_pton(AF_INET6, ip, &v6.pointee.sin6_addr) == 1
                }
        }
        guard parsed else { return nil }
        let address = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ClientAddress($0) }
        }
        guard let address else { return nil }
        self = address
    }
}

/// How many connections each client address holds, across all of a server's threads, and
/// whether it may open another: a bounded number per address, so that one address (a scanner,
/// thousands of slow clients) cannot take every connection the server allows.
///
/// Checked when a connection is accepted and counted once it is open, so two threads accepting
/// from one address at the same moment may let it exceed the limit by one each.
final class ClientConnectionLimit: Sendable {
    /// The most connections per address; 0: no limit (nothing is counted).
    let limit: Int
    /// Addresses that may open any number (reverse proxies).
    private let unlimited: Set<ClientAddress>
    private let open = Mutex<[ClientAddress: Int]>([:])

    /// A limit of `limit` connections per address (0: none), except for `unlimited` addresses.
    init(limit: Int, unlimited: Set<ClientAddress> = []) {
        self.limit = limit
        self.unlimited = unlimited
    }

    /// Whether `address` may open one more connection.
    func admits(_ address: ClientAddress) -> Bool {
        limit == 0 || unlimited.contains(address) || open.withLock { $0[address, default: 0] } < limit
    }

    /// Counts a connection from `address` that opened.
    func opened(_ address: ClientAddress) {
        guard limit > 0 else { return }
        open.withLock { $0[address, default: 0] += 1 }
    }

    /// Counts a connection from `address` that closed.
    func closed(_ address: ClientAddress) {
        guard limit > 0 else { return }
        open.withLock { open in
            let left = open[address, default: 1] - 1
            open[address] = left > 0 ? left : nil
        }
    }
}
