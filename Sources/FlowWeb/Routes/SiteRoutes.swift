import FlowStore
import MicroHTTP

/// What a site serves beside its sessions: `GET /healthz`, `GET /metrics` (unless switched off),
/// the files under `/public/` and `/favicon.ico`, where browsers and tools look for a site's
/// icon (Docs/CONTRACT.md §6).
struct SiteRoutes: RouteCollection {
    let metrics: WebMetrics?
    /// Where `/metrics` counts live sessions.
    let store: any SessionStore
    let clock: @Sendable () -> Int64
    /// The app's files (`nil`: it has none), in front of FlowServer's own.
    let files: StaticFiles?
    /// The OpenAPI document with the app's steps, served when the app has no `openapi.yaml`
    /// (`nil`: no steps are known, FlowServer's document is served).
    let apiDocument: ServedAPIDocument?

    func register(on router: inout Router) {
        router.add(.get, "/healthz", label: "healthz") { _, _ in .text("ok") }
        if let metrics {
            router.add(.get, "/metrics", label: "metrics") { _, _ in await metricsPage(metrics) }
        }
        router.add(.get, "/public/**", label: "public") { request, _ in await publicFile(request) }
        router.add(.get, "/favicon.ico", label: "public") { _, _ in
            var response = Response(status: HTTPStatus(301), headers: ["Location": "/public/favicon.svg"])
            response.headers["Cache-Control"] = "public, max-age=86400"
            return response
        }
    }

    /// Every metric in Prometheus' text format, live sessions counted first.
    private func metricsPage(_ metrics: WebMetrics) async -> Response {
        if let live = try? await store.liveCount(now: clock()) { metrics.setLiveSessions(live) }
        return Response(
            status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: metrics.text)
    }

    /// The app's own file first; FlowServer's default of that name otherwise (its OpenAPI
    /// document with the app's steps).
    private func publicFile(_ request: Request) async -> Response {
        if let files {
            let response = await files.respond(to: request)
            guard response.status == .notFound, FlowWebDefaults.publicResponder.serves(request) else {
                return response
            }
        }
        if let document = await apiDocument?.respond(to: request) { return document }
        return await FlowWebDefaults.publicResponder.respond(to: request)
    }
}
