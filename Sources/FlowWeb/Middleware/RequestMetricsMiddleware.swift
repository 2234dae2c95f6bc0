import MicroHTTP

/// Counts every request and its duration in ``WebMetrics`` by label (see `RequestLabels`) and
/// status, immediate answers included.
struct RequestMetricsMiddleware: HTTPMiddleware {
    let metrics: WebMetrics
    let labels: RequestLabels

    func respond(to request: Request, next: some HTTPResponder) async -> Response {
        let started = ContinuousClock.now
        let response = await next.respond(to: request)
        metrics.recordRequest(
            route: labels.label(of: request), status: response.status.code, duration: ContinuousClock.now - started)
        return response
    }

    func immediateResponse(to request: Request, next: some HTTPResponder) -> Response? {
        let started = ContinuousClock.now
        guard let response = next.immediateResponse(to: request) else { return nil }
        record(response, of: request, since: started)
        return response
    }

    /// Records an immediate answer. Apart, so that the metrics object is read only here: read
    /// before the page was made, it was retained across making it, a count every thread wrote
    /// on every page.
    @inline(never)
    private func record(_ response: borrowing Response, of request: Request, since started: ContinuousClock.Instant) {
        metrics.recordRequest(
            route: labels.label(of: request), status: response.status.code, duration: ContinuousClock.now - started)
    }
}
