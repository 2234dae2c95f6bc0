/// Whatever answers requests: the one boundary between the server and an application.
/// A responder never throws; failures become responses (an error page, a problem document).
///
/// ```swift
/// struct Hello: HTTPResponder {
///     func respond(to request: Request) async -> Response { .text("hello") }
/// }
/// let server = HTTPServer(configuration: .init(port: 0), responder: Hello())
/// ```
public protocol HTTPResponder: Sendable {
    /// The answer to `request`.
    func respond(to request: Request) async -> Response
}

/// A responder made of a closure.
public struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (Request) async -> Response

    /// Wraps `body`.
    public init(_ body: @escaping @Sendable (Request) async -> Response) { self.body = body }

    public func respond(to request: Request) async -> Response { await body(request) }
}
