import FlowCore
import FlowStore
import Logging
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle

/// Where HTTP meets flows (Docs/CONTRACT.md §1–6): ``FlowWebRoutes`` mounted on a router of their
/// own behind their middleware, then the app's ``WebApp/middleware`` in its order.
///
/// ```swift
/// let responder = FlowWebResponder(app: webApp, store: MemorySessionStore(), templates: templates)
/// let server = HTTPServer(configuration: .init(port: 8080), responder: responder)
/// ```
public final class FlowWebResponder<Step: FlowStep>: HTTPResponder {
    private let routes: FlowWebRoutes<Step>
    /// The middleware and the router, as requests go through them.
    private let chain: any HTTPResponder

    /// A responder for `app`, keeping sessions in `store`, rendering with `templates`.
    public init(
        app: WebApp<Step>, store: any SessionStore, templates: TemplateLibrary,
        configuration: WebConfiguration = WebConfiguration(),
        observers: [any NavigationObserver<Step>] = [], logger: Logger = Logger(label: "FlowWeb"),
        metrics: WebMetrics = WebMetrics(), clock: (@Sendable () -> Int64)? = nil
    ) {
        routes = FlowWebRoutes(
            app: app, store: store, templates: templates, configuration: configuration, observers: observers,
            logger: logger, metrics: metrics, clock: clock)
        var router = routes.router()
        router.add(routes)
        chain = router.wrapped(in: routes.middleware(for: router) + app.middleware)
    }

    /// The sessions the routes serve.
    var sessions: SessionService<Step> { routes.sessions }
    /// The metrics `GET /metrics` shows.
    public var metrics: WebMetrics { routes.metrics }
    /// What the responder does in the background (see ``FlowWebRoutes/services``).
    public var services: [any Service] { routes.services }

    public func respond(to request: Request) async -> Response {
        await chain.respond(to: request)
    }

    /// A page request that only shows the session's current page, answered on the server's
    /// thread when the store reads without waiting (see `FastPagePath`); `nil` for everything
    /// else, which ``respond(to:)`` answers.
    public func immediateResponse(to request: Request) -> Response? {
        chain.immediateResponse(to: request)
    }

    /// A reload of the session's current page on a store that tells stamps, answered once the
    /// stamp arrives, with no task (see `FastPagePath`); `false` for everything else.
    public func answerLater(to request: Request, answer: @escaping @Sendable (Response) -> Void) -> Bool {
        chain.answerLater(to: request, answer: answer)
    }

    public func response(for rejection: RequestRejection) -> Response {
        chain.response(for: rejection)
    }
}
