/// Work done around every request of a responder: limits, authentication, anything that may
/// answer a request itself or wait. A middleware gets the request and the responder after it
/// (`next`), and may answer itself, change the request it passes on, or change the answer. Work
/// that never waits (a header, a log line, a count) is a ``SynchronousMiddleware``, written once
/// for both ways a request is answered.
///
/// ```swift
/// struct AdminsOnly: HTTPMiddleware {
///     func respond(to request: Request, next: some HTTPResponder) async -> Response {
///         guard request.path.hasPrefix("/admin") else { return await next.respond(to: request) }
///         return await isAdmin(request) ? await next.respond(to: request) : .text("no", status: .forbidden)
///     }
/// }
/// let responder = router.wrapped(in: [AdminsOnly()])
/// ```
public protocol HTTPMiddleware: Sendable {
    /// The answer to `request`, usually by way of `next`.
    func respond(to request: Request, next: some HTTPResponder) async -> Response

    /// The answer to `request` when it is ready without waiting (see
    /// ``HTTPResponder/immediateResponse(to:)``), usually `next`'s with this middleware's work
    /// done on it; runs on a server thread and must not block. The default answers `nil`, which
    /// sends every request through ``respond(to:next:)``: correct, but it turns the fast path of
    /// the responders after it off. Implement it when the work is quick.
    func immediateResponse(to request: Request, next: some HTTPResponder) -> Response?

    /// Answers `request` later by way of `next`'s ``HTTPResponder/answerLater(to:answer:)``, with
    /// this middleware's work done on the answer; `false` (the default) when it cannot.
    func answerLater(to request: Request, next: some HTTPResponder, answer: @escaping @Sendable (Response) -> Void)
        -> Bool
}

extension HTTPMiddleware {
    public func immediateResponse(to request: Request, next: some HTTPResponder) -> Response? { nil }

    public func answerLater(
        to request: Request, next: some HTTPResponder, answer: @escaping @Sendable (Response) -> Void
    ) -> Bool { false }
}

extension HTTPResponder {
    /// This responder behind `middleware`, the first of them outermost: it sees each request
    /// first and each answer last.
    public func wrapped(in middleware: [any HTTPMiddleware]) -> any HTTPResponder {
        middleware.reversed().reduce(self as any HTTPResponder) { next, outer in
            MiddlewareResponder(middleware: outer, next: next)
        }
    }
}

/// One middleware in front of the responder after it.
struct MiddlewareResponder: HTTPResponder {
    let middleware: any HTTPMiddleware
    let next: any HTTPResponder

    func respond(to request: Request) async -> Response {
        await middleware.respond(to: request, next: next)
    }

    func immediateResponse(to request: Request) -> Response? {
        middleware.immediateResponse(to: request, next: next)
    }

    func answerLater(to request: Request, answer: @escaping @Sendable (Response) -> Void) -> Bool {
        middleware.answerLater(to: request, next: next, answer: answer)
    }

    /// A rejected request never reached a middleware: the innermost responder shapes the answer.
    func response(for rejection: RequestRejection) -> Response { next.response(for: rejection) }
}
