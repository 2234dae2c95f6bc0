/// Whatever answers requests: the one boundary between the server and an application.
/// A responder never throws; failures become responses (an error page, a problem document).
///
/// ```swift
/// struct Hello: HTTPResponder {
///     func respond(to request: Request) async -> Response { .text("hello") }
/// }
/// let server = HTTPServer(configuration: .init(port: 0), responder: Hello())
/// ```
///
/// A responder that can often answer without waiting (a fixed page, a cache hit, a health check)
/// also implements ``immediateResponse(to:)``: the server then queues that answer on the spot,
/// without starting a task for ``respond(to:)``.
public protocol HTTPResponder: Sendable {
    /// The answer to `request`.
    func respond(to request: Request) async -> Response

    /// The answer to `request` when it is ready without waiting, or `nil` to have
    /// ``respond(to:)`` called. The server asks this first, on its own thread, so it must not
    /// block. The default answers `nil`.
    func immediateResponse(to request: Request) -> Response?

    /// The answer to a request the server refused before asking ``respond(to:)`` (a malformed
    /// target, a body over the limit). The default is plain text with the reason.
    func response(for rejection: RequestRejection) -> Response

    /// Where the task answering the next request runs once it first suspends: the executor the
    /// things it waits for complete on, so that it resumes there without a hop to another thread.
    /// Called once per request, on a server thread; `nil` (the default): Swift's global
    /// concurrent executor. The task must never block its executor.
    func preferredTaskExecutor() -> (any TaskExecutor)?

    /// Answers `request` later, with no task of the server's: `true` when the responder took it
    /// and will call `answer` exactly once, from any thread; `false` (the default) to have
    /// ``respond(to:)`` called. Asked on the server's thread after ``immediateResponse(to:)``
    /// answered `nil`, so it must not block.
    func answerLater(to request: Request, answer: @escaping @Sendable (Response) -> Void) -> Bool
}

extension HTTPResponder {
    public func immediateResponse(to request: Request) -> Response? { nil }

    public func preferredTaskExecutor() -> (any TaskExecutor)? { nil }

    public func answerLater(to request: Request, answer: @escaping @Sendable (Response) -> Void) -> Bool { false }
}

/// A responder made of a closure.
public struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (Request) async -> Response

    /// Wraps `body`.
    public init(_ body: @escaping @Sendable (Request) async -> Response) { self.body = body }

    public func respond(to request: Request) async -> Response { await body(request) }
}
