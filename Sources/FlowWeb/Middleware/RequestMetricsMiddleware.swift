import MicroHTTP

/// Counts every request and its duration in ``WebMetrics`` by label (see `RequestLabels`) and
/// status, immediate answers included.
struct RequestMetricsMiddleware: SynchronousMiddleware {
    let metrics: WebMetrics
    let labels: RequestLabels

    func before(_ request: Request) -> ContinuousClock.Instant { ContinuousClock.now }

    /// Records the answer. The metrics object is read only here: read before the page was made,
    /// it was retained across making it, a count every thread wrote on every page.
    func after(_ response: inout Response, to request: Request, from started: ContinuousClock.Instant) {
        metrics.recordRequest(
            route: labels.label(of: request), status: response.status.code, duration: ContinuousClock.now - started)
    }
}
