import MicroHTTP

/// Gives every answer the security headers it lacks (see `SecurityHeaders`); pages carry theirs
/// from the start.
struct SecurityHeadersMiddleware: SynchronousMiddleware {
    let headers: SecurityHeaders

    init(_ headers: SecurityHeaders) { self.headers = headers }

    func after(_ response: inout Response, to request: Request, from start: Void) {
        headers.complete(&response)
    }
}
