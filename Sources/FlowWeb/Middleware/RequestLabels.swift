import MicroHTTP

/// The name a request's metrics carry: the part of the site it went to (`page`, `api`, `step`,
/// `app` for the app's own routes…), a handful of values whatever the paths.
struct RequestLabels: Sendable {
    /// The app's routes alone (`nil`: it has none).
    let appRoutes: Router?

    /// The label of `request`.
    func label(of request: Request) -> String {
        let segments = request.pathSegments
        switch segments.first {
        case "healthz" where segments.count == 1: return "healthz"
        case "metrics" where segments.count == 1: return "metrics"
        case "public": return "public"
        case "api" where segments.count >= 2 && segments[1] == "v1": return "api"
        case "_step": return "step"
        case "_inspector" where segments.count == 1: return "inspector"
        case "_events" where segments.count == 1: return "events"
        default: return appRoutes?.hasRoute(for: request) == true ? "app" : "page"
        }
    }
}
