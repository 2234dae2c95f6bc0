import FlowCore
import FlowStore
import Logging
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle

/// Where HTTP meets flows (Docs/CONTRACT.md §1–6): sessions from cookies or bearer tokens, pages and
/// visits, deep links, steps from links and forms, the JSON API, static files and `/healthz`.
///
/// ```swift
/// let responder = FlowWebResponder(app: webApp, store: MemorySessionStore(), templates: templates)
/// let server = HTTPServer(configuration: .init(port: 8080), responder: responder)
/// ```
///
/// It only assembles: the route collections of each concern (`SiteRoutes`, `APIRoutes`,
/// `StepRoutes`, `InspectorRoutes`, `EventRoutes`, the app's ``WebApp/routeCollections``, and
/// last `PageRoutes` for every other `GET`), given one `FlowWebContext` made first, in one
/// router behind the middleware: the request log, metrics, security headers, then the app's
/// ``WebApp/middleware`` in its order.
public final class FlowWebResponder<Step: FlowStep>: HTTPResponder {
    let sessions: SessionService<Step>
    /// The metrics `GET /metrics` shows.
    public let metrics: WebMetrics
    /// What the responder does in the background — keeping live tabs' event streams going — as
    /// swift-service-lifecycle services, to run for as long as it serves (``FlowWebService`` runs
    /// them beside the server).
    public var services: [any Service] { [LiveTabFanOut(sessions: sessions)] }
    /// The middleware and the router, as requests go through them.
    private let chain: any HTTPResponder

    /// A responder for `app`, keeping sessions in `store`, rendering with `templates`.
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
        let context = FlowWebContext(
            sessions: sessions, composer: PageComposer(app: app, templates: templates, headers: security),
            security: security, configuration: configuration)
        let fastPath = FastPagePath(
            store: store, decoded: sessions.decoded, decoder: sessions.decoder, ids: sessions.ids,
            initial: sessions.readyInitialSession, lifetime: sessions.lifetime, clock: sessions.clock,
            locks: sessions.locks)
        let errors = context.errors
        var router = Router(
            notFound: { request in errors.response(.notFound("There is no page at \(request.path)."), to: request) },
            methodNotAllowed: { request, allow in errors.response(.methodNotAllowed(allow), to: request) },
            rejected: { rejection in errors.response(for: rejection) })
        router.add(
            SiteRoutes(
                metrics: configuration.metricsEnabled ? metrics : nil, store: store, clock: sessions.clock,
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
        for collection in app.routeCollections {
            router.labeling("app") { collection.register(on: &$0, sessions: BrowserSessions(context)) }
        }
        router.add(PageRoutes(context: context, fastPath: fastPath), label: "page")
        // Each route's label was given where it was registered; what no route answers (a 404 or
        // 405 of another method) is counted with the pages.
        let labels = RequestLabels(router: router, unmatched: "page")
        chain = router.wrapped(
            in: [
                RequestLogMiddleware(logger: logger), RequestMetricsMiddleware(metrics: metrics, labels: labels),
                SecurityHeadersMiddleware(security),
            ] + app.middleware)
    }

    public func respond(to request: Request) async -> Response {
        await chain.respond(to: request)
    }

    /// The session store's preferred executor (see `SessionStore.preferredTaskExecutor()`):
    /// requests mostly wait on the store.
    public func preferredTaskExecutor() -> (any TaskExecutor)? {
        sessions.store.preferredTaskExecutor()
    }

    /// A page request that only shows the session's current page, answered on the server's
    /// thread when the store reads without waiting (see `FastPagePath`); `nil` for everything
    /// else, which ``respond(to:)`` answers.
    public func immediateResponse(to request: Request) -> Response? {
        chain.immediateResponse(to: request)
    }

    public func response(for rejection: RequestRejection) -> Response {
        chain.response(for: rejection)
    }
}
