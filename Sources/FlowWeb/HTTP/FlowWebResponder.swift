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
/// Requests pass through the middleware first (the request log, metrics, security headers, then
/// the app's ``WebApp/middleware`` in its order) and are then routed: `/healthz`, `/metrics`, `/public/…`,
/// `/api/v1/…`, `/_step…`, `/_inspector`, `/_events`, the app's ``WebApp/routeCollections``, and
/// last every other `GET` as a page, a visit or a deep link.
public final class FlowWebResponder<Step: FlowStep>: HTTPResponder {
    let sessions: SessionService<Step>
    /// Reloads of the current page on the server's thread, when the store reads without waiting.
    let fastPath: FastPagePath?
    let composer: PageComposer
    /// The security headers of every answer.
    let security: SecurityHeaders
    let configuration: WebConfiguration
    /// The app's navigation graph for `/_inspector/graph`, made on first use.
    let inspectorGraph: InspectorGraph
    let staticFiles: StaticFiles?
    let logger: Logger
    /// The metrics `GET /metrics` shows.
    public let metrics: WebMetrics
    /// What the responder does in the background — keeping live tabs' event streams going — as
    /// swift-service-lifecycle services, to run for as long as it serves (FlowServerRuntime runs
    /// them in its `ServiceGroup`; FlowTesting's `TestServer` too).
    public var services: [any Service] { [LiveTabFanOut(sessions: sessions)] }
    /// The routes the app adds (see ``WebApp/routeCollections``).
    let appRoutes: [any WebRouteCollection<Step>]
    /// The middleware and the router, as requests go through them; set once, by `init`.
    private let chain = ResponderSlot()

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
            retention: configuration.historyRetention,
            creationLimit: configuration.newSessionsPerMinute > 0
                ? SessionCreationLimit(
                    perMinute: configuration.newSessionsPerMinute, burst: max(1, configuration.newSessionBurst)) : nil,
            events: SessionEvents(
                limits: .init(perSession: configuration.eventStreamsPerSession, total: configuration.eventStreams)),
            observers: observers, metrics: metrics, logger: logger, clock: clock ?? SessionClock.nowMilliseconds)
        self.sessions = sessions
        fastPath = (store as? any ImmediateSessionLoading).map { store in
            FastPagePath(
                store: store, decoded: sessions.decoded, decoder: sessions.decoder, ids: sessions.ids,
                initial: sessions.readyInitialSession,
                lifetime: sessions.lifetime, clock: sessions.clock)
        }
        security = SecurityHeaders(configuration)
        composer = PageComposer(app: app, templates: templates, headers: security)
        self.configuration = configuration
        inspectorGraph = InspectorGraph(configuration.inspectorGraph)
        staticFiles = configuration.publicDirectory.map { StaticFiles(directory: $0, urlPrefix: "/public") }
        self.logger = logger
        appRoutes = app.routeCollections
        let router = router
        var appRouter = Router()
        for collection in appRoutes { collection.register(on: &appRouter, sessions: BrowserSessions(self)) }
        let labels = RequestLabels(appRoutes: appRoutes.isEmpty ? nil : appRouter)
        chain.set(
            router.wrapped(
                in: [
                    RequestLogMiddleware(logger: logger), RequestMetricsMiddleware(metrics: metrics, labels: labels),
                    SecurityHeadersMiddleware(security),
                ] + app.middleware))
    }

    /// FlowWeb's routes and the app's, in the order they are tried. Their handlers hold the
    /// responder `unowned(unsafe)`: the router lives inside it (so it outlives no handler), and a
    /// checked reference would count, atomically, on every request of every thread.
    private var router: Router {
        var router = Router(
            notFound: { [unowned(unsafe) self] request in
                errorResponse(.notFound("There is no page at \(request.path)."), request)
            },
            methodNotAllowed: { [unowned(unsafe) self] request, allow in
                errorResponse(.methodNotAllowed(allow), request)
            },
            rejected: { [unowned(unsafe) self] rejection in
                composer.errorPage(
                    WebError(
                        rejection.status, rejection.status == .contentTooLarge ? "Content too large" : "Bad request",
                        rejection.message), topURL: nil)
            })
        router.add(.get, "/healthz") { _, _ in .text("ok") }
        if configuration.metricsEnabled {
            router.add(.get, "/metrics", handler: { [unowned(unsafe) self] _, _ in await metricsPage() })
        }
        router.add(.get, "/public/**") { [unowned(unsafe) self] request, _ in await publicFile(request) }
        registerAPI(on: &router)
        router.addForAnyMethod("/_step/**") { [unowned(unsafe) self] request, _ in await respondToStep(request) }
        if configuration.inspectorEnabled {
            router.add(.get, "/_inspector") { [unowned(unsafe) self] request, _ in await respondToInspector(request) }
            router.add(.get, "/_inspector/graph") { [unowned(unsafe) self] request, _ in
                await respondToGraphInspector(request)
            }
            router.add(.get, "/_inspector/history/{seq}") { [unowned(unsafe) self] request, parameters in
                await respondToPastInspector(request, seq: parameters["seq"])
            }
        }
        router.add(.get, "/_events") { [unowned(unsafe) self] request, _ in await respondToEvents(request) }
        let sessions = BrowserSessions(self)
        for collection in appRoutes { collection.register(on: &router, sessions: sessions) }
        router.add(
            .get, "/**", immediate: { [unowned(unsafe) self] request, _ in currentPageImmediately(request) },
            handler: { [unowned(unsafe) self] request, _ in await respondToPage(request) })
        return router
    }

    public func respond(to request: Request) async -> Response {
        await chain.responder.respond(to: request)
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
        chain.responder.immediateResponse(to: request)
    }

    public func response(for rejection: RequestRejection) -> Response {
        chain.responder.response(for: rejection)
    }

    /// `error` as the request's part of the site answers errors: a problem document under
    /// `/api/`, an error page elsewhere.
    func errorResponse(_ error: WebError, _ request: Request) -> Response {
        request.pathSegments.first == "api" ? error.problem : composer.errorPage(error, topURL: nil)
    }

    /// `GET /metrics`: every metric in Prometheus' text format, live sessions counted first.
    private func metricsPage() async -> Response {
        if let live = try? await sessions.store.liveCount(now: sessions.clock()) { metrics.setLiveSessions(live) }
        return Response(
            status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: metrics.text)
    }

    /// `GET /public/…`: the app's own file first; FlowServer's default of that name otherwise.
    private func publicFile(_ request: Request) async -> Response {
        if let staticFiles {
            let response = await staticFiles.respond(to: request)
            guard response.status == .notFound, FlowWebDefaults.publicResponder.serves(request) else {
                return response
            }
        }
        return await FlowWebDefaults.publicResponder.respond(to: request)
    }

    // MARK: Sessions

    /// Answers `request` with what `body` makes of the browser's session — the cookie's, or a new
    /// one at the app's initial state, not stored — with the cookie of a new session on a page or
    /// a redirect, and a thrown error as an error page linking to the session's current page.
    /// `body` returns its answer and the session as it left it.
    func withBrowserSession(
        _ request: Request, _ body: (LoadedSession) async throws(WebError) -> SessionAnswer
    ) async -> Response {
        var session: LoadedSession?
        var isNew = false
        do {
            var found: LoadedSession?
            if let id = request.cookie(configuration.sessionCookieName) { found = try await sessions.loadForUse(id) }
            var loaded = if let found { found } else { try await sessions.fresh() }
            loaded.client = clientAddress(request)
            session = loaded
            isNew = found == nil
            let answer = try await body(loaded)
            return finish(answer.result, setCookieFor: answer.session, isNew)
        } catch {
            return finish(composer.errorPage(error, topURL: session?.tree.top?.url), setCookieFor: session, isNew)
        }
    }

    /// What a request on the browser's session answers (`result`), and the session as the request
    /// left it.
    typealias SessionAnswer = SessionService<Step>.UpdatedSession<Response>

    /// The address of the client that sent `request`: the peer's, or, when the peer is a
    /// trusted proxy, the address it forwarded (see ``WebConfiguration/trustedProxies``).
    func clientAddress(_ request: Request) -> String? {
        RequestClient.of(request, trustedProxies: configuration.trustedProxies)
    }

    func sessionCookie(_ id: String) -> String {
        SetCookie(
            name: configuration.sessionCookieName, value: id, path: "/", maxAge: configuration.sessionTTL,
            httpOnly: true,
            secure: configuration.secureCookies, sameSite: .lax
        ).headerValue
    }

    /// `response`, with the cookie of a new `session` when `setCookie` and `response` is a page or
    /// a redirect: an error answer (`404`, `429`) gives a visitor no session.
    func finish(_ response: Response, setCookieFor session: LoadedSession?, _ setCookie: Bool) -> Response {
        var response = response
        if setCookie, response.status.code < 400, let session {
            response.headers.add("Set-Cookie", sessionCookie(session.record.id))
        }
        return response
    }

    func redirect(_ location: String) -> Response {
        var response = Response.seeOther(location)
        response.headers["Cache-Control"] = "no-store"
        security.complete(&response)
        return response
    }

    func logNavigation(_ session: LoadedSession, _ entry: PendingEntry<Step>) {
        metrics.recordNavigation(entry.navigation.outcome)
        var step = "-"
        if case .step(let value, _) = entry.navigation.trigger {
            step = (try? WireStep(value))?.canonical ?? "\(value)"
        }
        logger.info(
            "navigation",
            metadata: [
                "session": "\(session.record.id.prefix(8))", "source": "\(entry.source.rawValue)", "step": "\(step)",
                "outcome": "\(entry.navigation.outcome.rawValue)", "top": "\(entry.navigation.topURL)",
            ])
    }
}
