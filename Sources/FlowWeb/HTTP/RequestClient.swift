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
    /// `[::1]:5000` → `::1`; an address without a port stays as it is.
    static func host(of address: some StringProtocol) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        if address.filter({ $0 == ":" }).count == 1, let colon = address.firstIndex(of: ":") {
            return String(address[..<colon])
        }
        return String(address)
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
