import FlowCore
import MicroHTTP

/// Routes an app serves beside its flows — a JSON endpoint for a search box, a payment
/// provider's webhook, a CSV download — given to ``WebApp`` as ``WebApp/routeCollections``.
/// They are tried after FlowWeb's own (`/healthz`, `/public/…`, `/api/v1/…`, `/_step…`…) and
/// before pages, so a route here answers any other path it names.
///
/// ```swift
/// struct CartRoutes: WebRouteCollection {
///     func register(on router: inout Router, sessions: BrowserSessions<ShopStep>) {
///         router.add(.get, "/cart.json") { request, _ in
///             await sessions.respond(to: request) { session in
///                 .json(session?.appData(CheckoutSession.self)?.cart ?? [])
///             }
///         }
///     }
/// }
/// ```
public protocol WebRouteCollection<Step>: Sendable {
    /// The app's steps.
    associatedtype Step: FlowStep

    /// Adds the routes to `router`; `sessions` reaches the session of the browser that sent a
    /// request.
    func register(on router: inout Router, sessions: BrowserSessions<Step>)
}
