import MicroHTTP

/// Which address a request comes from, for limits kept per client.
enum RequestClient {
    /// The peer's IP address (no port, IPv6 without brackets), or, when the peer is one of
    /// `trustedProxies`, the last address in `X-Forwarded-For` that is not a trusted proxy
    /// (proxies append the address they heard from, so earlier entries are the client's word
    /// and later ones the proxies'). `nil` when the peer is unknown.
    static func of(_ request: Request, trustedProxies: Set<String>) -> String? {
        guard let peer = request.remoteAddress.map(host(of:)) else { return nil }
        guard trustedProxies.contains(peer) else { return peer }
        let forwarded = request.headers.values(for: "X-Forwarded-For")
            .flatMap { $0.split(separator: ",") }
            .map { host(of: $0.trimmingCharacters(in: " \t")) }
        return forwarded.last { !trustedProxies.contains($0) && !$0.isEmpty } ?? peer
    }

    /// `address` without its port and brackets: `10.0.0.1:5000` → `10.0.0.1`,
    /// `[::1]:5000` → `::1`; an address without a port stays as it is. (Runs for every request
    /// that uses a session: no string is made but the answer.)
    static func host(of address: some StringProtocol) -> String {
        let text = Substring(address)
        let utf8 = text.utf8
        if utf8.first == UInt8(ascii: "["), let end = utf8.firstIndex(of: UInt8(ascii: "]")) {
            return String(text[utf8.index(after: utf8.startIndex)..<end])
        }
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return String(text) }
        // One colon: IPv4 with a port; more: an IPv6 address without brackets.
        return utf8[utf8.index(after: colon)...].contains(UInt8(ascii: ":")) ? String(text) : String(text[..<colon])
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in characters: String) -> Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { !characters.contains($0) }) else { return "" }
        let last = text.lastIndex(where: { !characters.contains($0) })!
        return text[first...last]
    }
}
