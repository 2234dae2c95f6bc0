/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case invalidConfiguration(String)
        case unresolvableHost(String)
        case bindFailed(host: String, port: Int, reason: String)
        case startFailed(host: String, port: Int)
        case alreadyStarted
    }

    private let kind: Kind

    static func invalidConfiguration(_ message: String) -> Self { Self(kind: .invalidConfiguration(message)) }
    static func unresolvableHost(_ host: String) -> Self { Self(kind: .unresolvableHost(host)) }
    static func bindFailed(host: String, port: Int, reason: String) -> Self {
        Self(kind: .bindFailed(host: host, port: port, reason: reason))
    }
    static func startFailed(host: String, port: Int) -> Self { Self(kind: .startFailed(host: host, port: port)) }
    static let alreadyStarted = Self(kind: .alreadyStarted)

    /// A one-line message saying what to change.
    public var description: String {
        switch kind {
        case .invalidConfiguration(let message):
            "invalid server configuration: \(message)"
        case .unresolvableHost(let host):
            "cannot listen on host \"\(host)\": not an IP address or resolvable host name"
        case .bindFailed(let host, let port, let reason):
            "cannot listen on \(host):\(port): \(reason) (try another --port, or 0 for a free one)"
        case .startFailed(let host, let port):
            "cannot serve on \(host):\(port): libmicrohttpd did not start (out of threads or memory? its log says why)"
        case .alreadyStarted:
            "the server was already started; create a new HTTPServer to start again"
        }
    }
}
