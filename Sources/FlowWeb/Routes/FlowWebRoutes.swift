import FlowCore
import FlowStore
import Logging
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle

/// FlowWeb's routes (Docs/CONTRACT.md §1–6) as a MicroHTTP `RouteCollection`, for an app that
/// keeps a `Router` of its own: sessions from cookies or bearer tokens, pages and visits, deep
/// links, steps from links and forms, the JSON API, static files and `/healthz`.
///
/// ```swift
/// let web = FlowWebRoutes(app: webApp, store: store, templates: templates)
/// var router = web.router()                                   // FlowWeb's 404, 405 and 413 pages
/// router.add(.get, "/status") { _, _ in .text("ok") }         // the app's own, tried first
/// router.add(web)                                             // FlowWeb's, pages last
/// let responder = router.wrapped(in: web.middleware(for: router) + [AuditLog()])
/// ```
///
/// It registers the route collections of each concern (`SiteRoutes`, `APIRoutes`, `StepRoutes`,
/// `InspectorRoutes`, `EventRoutes`, the app's ``WebApp/routeCollections``, and last `PageRoutes`
/// for every other `GET`, so routes added after it are never reached), all given one
/// `FlowWebContext` made first. ``FlowWebResponder`` is this, mounted on a router of its own.
public struct FlowWebRoutes<Step: FlowStep>: RouteCollection, Sendable {
    let sessions: SessionService<Step>
    /// The metrics `GET /metrics` shows.
    public let metrics: WebMetrics
    private let context: FlowWebContext<Step>
    private let fastPath: FastPagePath?

    /// FlowWeb's routes for `app`, keeping sessions in `store`, rendering with `templates`.
    public init(
        app: WebApp<Step>, store: any SessionStore, templates: TemplateLibrary,
        configuration: WebConfiguration = WebConfiguration(),
        observers: [any NavigationObserver<Step>] = [], logger: Logger = Logger(label: "FlowWeb"),
        metrics: WebMetrics = WebMetrics(), clock: (@Sendable () -> Int64)? = nil
    ) {
        self.metrics = metrics
        let sessions = SessionService(
            app: app, store: store, ttlSeconds: configuration.sessionTTL,
            secret: configuration.sessionSecret ?? SessionIDs.randomSecret(),
            retention: configuration.historyRetention, limits: configuration.sessionLimits,
            creationLimit: configuration.newSessionsPerMinute > 0
                ? SessionCreationLimit(
                    perMinute: configuration.newSessionsPerMinute, burst: max(1, configuration.newSessionBurst)) : nil,
            events: SessionEvents(
                limits: .init(perSession: configuration.eventStreamsPerSession, total: configuration.eventStreams)),
            observers: observers, metrics: metrics, logger: logger, clock: clock ?? SessionClock.nowMilliseconds)
        self.sessions = sessions
        let security = SecurityHeaders(configuration)
        context = FlowWebContext(
            sessions: sessions, composer: PageComposer(app: app, templates: templates, headers: security),
            security: security, configuration: configuration)
        fastPath = FastPagePath(sessions.fastPathSessions)
    }

    /// What the routes do in the background — keeping live tabs' event streams going — as
    /// swift-service-lifecycle services, to run for as long as they serve (``FlowWebService``
    /// runs them beside the server).
    public var services: [any Service] { [LiveTabFanOut(sessions: sessions)] }

    /// An empty router that answers what no route does as FlowWeb's pages and problems do: `404`,
    /// `405` with `Allow`, and the server's rejections (`413`, `414`, `431`…).
    public func router() -> Router {
        let errors = context.errors
        return Router(
            notFound: { request in errors.response(.notFound("There is no page at \(request.path)."), to: request) },
            methodNotAllowed: { request, allow in errors.response(.methodNotAllowed(allow), to: request) },
            rejected: { rejection in errors.response(for: rejection) })
    }

    /// Adds FlowWeb's routes, each with its metric label, the app's ``WebApp/routeCollections``
    /// among them (as `app`), pages last.
    public func register(on router: inout Router) {
        let configuration = context.configuration
        router.add(
            SiteRoutes(
                metrics: configuration.metricsEnabled ? metrics : nil, store: sessions.store, clock: sessions.clock,
                files: configuration.publicDirectory.map { StaticFiles(directory: $0, urlPrefix: "/public") },
                apiDocument: configuration.apiSteps.map(ServedAPIDocument.init)))
        router.add(APIRoutes(context: context), label: "api")
        router.add(StepRoutes(context: context), label: "step")
        if configuration.inspectorEnabled {
            router.add(
                InspectorRoutes(context: context, graph: configuration.inspectorGraph.map(MadeOnce.init)),
                label: "inspector")
        }
        router.add(EventRoutes(context: context), label: "events")
        for collection in sessions.app.routeCollections {
            router.labeling("app") { collection.register(on: &$0, sessions: BrowserSessions(context)) }
        }
        router.add(PageRoutes(context: context, fastPath: fastPath), label: "page")
    }

    /// FlowWeb's middleware for `router` (which holds these routes), in the order requests pass
    /// through it: the request log, metrics (by the label of the route that answers; what none
    /// answers counts as `page`), security headers. An app's own goes after it.
    public func middleware(for router: Router) -> [any HTTPMiddleware] {
        [
            RequestLogMiddleware(logger: sessions.logger),
            RequestMetricsMiddleware(metrics: metrics, labels: RequestLabels(router: router, unmatched: "page")),
            SecurityHeadersMiddleware(context.security),
        ]
    }
}
