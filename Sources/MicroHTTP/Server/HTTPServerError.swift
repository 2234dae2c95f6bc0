/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case invalidConfiguration(String)
        case unresolvableHost(String)
        case startFailed(host: String, port: Int)
        case alreadyStarted
    }

    private let kind: Kind

    static func invalidConfiguration(_ message: String) -> Self { Self(kind: .invalidConfiguration(message)) }
    static func unresolvableHost(_ host: String) -> Self { Self(kind: .unresolvableHost(host)) }
    static func startFailed(host: String, port: Int) -> Self { Self(kind: .startFailed(host: host, port: port)) }
    static let alreadyStarted = Self(kind: .alreadyStarted)

    /// A one-line message saying what to change.
    public var description: String {
        switch kind {
        case .invalidConfiguration(let message):
            "invalid server configuration: \(message)"
        case .unresolvableHost(let host):
            "cannot listen on host \"\(host)\": not an IP address or resolvable host name"
        case .startFailed(let host, let port):
            "cannot listen on \(host):\(port): the port may be in use or need privileges (try another --port, or 0 for a free one)"
        case .alreadyStarted:
            "the server was already started; create a new HTTPServer to start again"
        }
    }
}
