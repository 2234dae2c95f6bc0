import MicroHTTP

/// Gives every answer the security headers it lacks (see `SecurityHeaders`); pages carry theirs
/// from the start.
struct SecurityHeadersMiddleware: HTTPMiddleware {
    let headers: SecurityHeaders

    init(_ headers: SecurityHeaders) { self.headers = headers }

    func respond(to request: Request, next: some HTTPResponder) async -> Response {
        var response = await next.respond(to: request)
        headers.complete(&response)
        return response
    }

    func immediateResponse(to request: Request, next: some HTTPResponder) -> Response? {
        guard var response = next.immediateResponse(to: request) else { return nil }
        headers.complete(&response)
        return response
    }
}
