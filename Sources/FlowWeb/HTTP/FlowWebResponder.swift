import FlowCore
import FlowStore
import Logging
import MicroHTTP
import MustacheTemplates

/// Where HTTP meets flows (Docs/CONTRACT.md §1–6): sessions from cookies or bearer tokens, pages and
/// visits, deep links, steps from links and forms, the JSON API, static files and `/healthz`.
///
/// ```swift
/// let responder = FlowWebResponder(app: webApp, store: MemorySessionStore(), templates: templates)
/// let server = HTTPServer(configuration: .init(port: 8080), responder: responder)
/// ```
public final class FlowWebResponder<Step: FlowStep>: HTTPResponder {
    let sessions: SessionService<Step>
    /// Reloads of the current page on the server's thread, when the store reads without waiting.
    let fastPath: FastPagePath?
    let composer: PageComposer
    /// The security headers of every answer.
    let security: SecurityHeaders
    let configuration: WebConfiguration
    let staticFiles: StaticFiles?
    let logger: Logger
    /// The metrics `GET /metrics` shows.
    public let metrics: WebMetrics

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
        staticFiles = configuration.publicDirectory.map { StaticFiles(directory: $0, urlPrefix: "/public") }
        self.logger = logger
    }

    public func respond(to request: Request) async -> Response {
        let started = ContinuousClock.now
        let route = Route(request.pathSegments)
        var response = await dispatch(request, to: route)
        security.complete(&response)
        metrics.recordRequest(
            route: route.rawValue, status: response.status.code, duration: ContinuousClock.now - started)
        return response
    }

    /// A page request that only shows the session's current page, answered on the server's
    /// thread when the store reads without waiting (see `FastPagePath`); `nil` for everything
    /// else, which ``respond(to:)`` answers.
    public func immediateResponse(to request: Request) -> Response? {
        let started = ContinuousClock.now
        guard Route(request.pathSegments) == .page, let response = currentPageImmediately(request) else { return nil }
        recordPage(response, since: started)
        return response
    }

    /// Records an immediate page in the metrics. Apart, so that the metrics object is read only
    /// here: read before the page was made, it was retained across making it, a count every
    /// thread wrote on every page.
    @inline(never)
    private func recordPage(_ response: borrowing Response, since started: ContinuousClock.Instant) {
        metrics.recordRequest(
            route: Route.page.rawValue, status: response.status.code, duration: ContinuousClock.now - started)
    }

    /// What a request is for, by its path; the raw value names it in the metrics.
    enum Route: String {
        case healthz, metrics, `public`, api, step, inspector, events, page

        init(_ segments: [String]) {
            switch segments.first {
            case "healthz" where segments.count == 1: self = .healthz
            case "metrics" where segments.count == 1: self = .metrics
            case "public": self = .public
            case "api" where segments.count >= 2 && segments[1] == "v1": self = .api
            case "_step": self = .step
            case "_inspector" where segments.count == 1: self = .inspector
            case "_events" where segments.count == 1: self = .events
            default: self = .page
            }
        }
    }

    private func dispatch(_ request: Request, to route: Route) async -> Response {
        switch route {
        case .healthz:
            guard request.method == .get || request.method == .head else {
                return composer.errorPage(.methodNotAllowed("GET, HEAD"), topURL: nil)
            }
            return .text("ok")
        case .metrics:
            guard request.method == .get || request.method == .head else {
                return composer.errorPage(.methodNotAllowed("GET, HEAD"), topURL: nil)
            }
            if let live = try? await sessions.store.liveCount(now: sessions.clock()) { metrics.setLiveSessions(live) }
            return Response(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: metrics.text)
        case .public:
            // The app's own file first; FlowServer's default of that name otherwise.
            if let staticFiles {
                let response = await staticFiles.respond(to: request)
                guard response.status == .notFound, FlowWebDefaults.publicResponder.serves(request) else {
                    return response
                }
            }
            return await FlowWebDefaults.publicResponder.respond(to: request)
        case .api:
            return await respondToAPI(request, path: Array(request.pathSegments.dropFirst(2)))
        case .step:
            return await respondToStep(request)
        case .inspector:
            return await respondToInspector(request)
        case .events:
            return await respondToEvents(request)
        case .page:
            return await respondToPage(request)
        }
    }

    public func response(for rejection: RequestRejection) -> Response {
        composer.errorPage(
            WebError(
                rejection.status, rejection.status == .contentTooLarge ? "Content too large" : "Bad request",
                rejection.message), topURL: nil)
    }

    // MARK: Sessions

    /// The browser's session, or a new one at the app's initial state, not stored (with its
    /// cookie to set).
    func browserSession(_ request: Request) async throws(WebError) -> (LoadedSession, setCookie: Bool) {
        var found: LoadedSession?
        if let id = request.cookie(configuration.sessionCookieName) { found = try await sessions.loadForUse(id) }
        var session = if let found { found } else { try await sessions.fresh() }
        session.client = clientAddress(request)
        return (session, found == nil)
    }

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
