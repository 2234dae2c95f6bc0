/// A middleware whose work never waits — a header, a log line, a count — written once: it looks
/// at each request before the responder after it (``before(_:)``) and works on each answer after
/// it (``after(_:to:from:)``). Both ways a request is answered get that work — the task, and the
/// immediate answer on the server's thread (see ``HTTPResponder/immediateResponse(to:)``) — so
/// the fast path of the responders after it stays on. A middleware that answers requests itself
/// or waits on something is an ``HTTPMiddleware``.
///
/// ```swift
/// struct ServerName: SynchronousMiddleware {
///     func after(_ response: inout Response, to request: Request, from start: Void) {
///         response.headers["Server"] = "checkout"
///     }
/// }
/// let responder = router.wrapped(in: [ServerName()])
/// ```
public protocol SynchronousMiddleware: HTTPMiddleware {
    /// What ``before(_:)`` hands to ``after(_:to:from:)`` (a start time, say); nothing by default.
    associatedtype Start: Sendable = Void

    /// What to remember of `request` before the responder after it works on it. It must have no
    /// effect of its own: it runs again for each way of answering that the responder after it
    /// declines (immediately, later, then in a task).
    func before(_ request: Request) -> Start

    /// Works on the answer to `request`; `start` is what ``before(_:)`` gave. Runs on a server
    /// thread for an immediate answer: it must not block.
    func after(_ response: inout Response, to request: Request, from start: Start)
}

extension SynchronousMiddleware where Start == Void {
    /// Nothing to remember.
    @inlinable public func before(_ request: Request) {}
}

extension SynchronousMiddleware {
    /// ``before(_:)``, the responder after it, then ``after(_:to:from:)``. Inlinable, so that a
    /// middleware's own module specializes it: the fast path pays no generic call per middleware.
    @inlinable public func respond(to request: Request, next: some HTTPResponder) async -> Response {
        let start = before(request)
        var response = await next.respond(to: request)
        after(&response, to: request, from: start)
        return response
    }

    /// The same for an immediate answer: `nil` when the responder after it has none.
    @inlinable public func immediateResponse(to request: Request, next: some HTTPResponder) -> Response? {
        let start = before(request)
        guard var response = next.immediateResponse(to: request) else { return nil }
        after(&response, to: request, from: start)
        return response
    }

    @inlinable public func answerLater(
        to request: Request, next: some HTTPResponder, answer: @escaping @Sendable (Response) -> Void
    ) -> Bool {
        let start = before(request)
        return next.answerLater(to: request) { response in
            var response = response
            after(&response, to: request, from: start)
            answer(response)
        }
    }
}
