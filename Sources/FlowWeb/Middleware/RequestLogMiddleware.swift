import Logging
import MicroHTTP

/// Logs every request at `debug` level — method, path, status and duration — immediate answers
/// included: an access log to switch on with `--log-level debug`. Cheap while it is off: one
/// check of the level per request.
struct RequestLogMiddleware: SynchronousMiddleware {
    let logger: Logger

    /// When the request started, if it is to be logged.
    func before(_ request: Request) -> ContinuousClock.Instant? {
        logger.logLevel <= .debug ? ContinuousClock.now : nil
    }

    func after(_ response: inout Response, to request: Request, from started: ContinuousClock.Instant?) {
        guard let started else { return }
        logger.debug(
            "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.path)", "status": "\(response.status.code)",
                "duration": "\(ContinuousClock.now - started)",
            ])
    }
}
