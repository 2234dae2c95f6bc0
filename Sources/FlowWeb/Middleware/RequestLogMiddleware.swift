import Logging
import MicroHTTP

/// Logs every request at `debug` level — method, path, status and duration — immediate answers
/// included: an access log to switch on with `--log-level debug`. Cheap while it is off: one
/// check of the level per request.
struct RequestLogMiddleware: HTTPMiddleware {
    let logger: Logger

    func respond(to request: Request, next: some HTTPResponder) async -> Response {
        guard logger.logLevel <= .debug else { return await next.respond(to: request) }
        let started = ContinuousClock.now
        let response = await next.respond(to: request)
        log(request, response.status, since: started)
        return response
    }

    func immediateResponse(to request: Request, next: some HTTPResponder) -> Response? {
        guard logger.logLevel <= .debug else { return next.immediateResponse(to: request) }
        let started = ContinuousClock.now
        guard let response = next.immediateResponse(to: request) else { return nil }
        log(request, response.status, since: started)
        return response
    }

    private func log(_ request: Request, _ status: HTTPStatus, since started: ContinuousClock.Instant) {
        logger.debug(
            "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.path)", "status": "\(status.code)",
                "duration": "\(ContinuousClock.now - started)",
            ])
    }
}
