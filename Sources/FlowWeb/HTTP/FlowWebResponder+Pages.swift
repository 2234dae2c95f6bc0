import FlowCore
import MicroHTTP

extension FlowWebResponder {
    /// The notice shown after a step from a page that is no longer current.
    static var staleNotice: String { "That action came from a page that is no longer current, so nothing was done." }

    /// `GET /`, page visits, deep links and `404` (Docs/CONTRACT.md §2).
    func respondToPage(_ request: Request) async -> Response {
        await withBrowserSession(request) { session async throws(WebError) in try await page(request, session) }
    }

    /// The session's current page when it is what `request` asks for and the session reads
    /// without waiting, or a first visit to `/` or the first page; `nil` otherwise (a visit, a
    /// deep link, an error page).
    func currentPageImmediately(_ request: Request) -> Response? {
        guard request.method == .get || request.method == .head, let fastPath else { return nil }
        guard let id = request.cookie(configuration.sessionCookieName) else {
            guard let fresh = fastPath.firstVisit(to: request.path, chrome: composer.chrome(of:)) else { return nil }
            let response =
                request.path == "/"
                ? redirect(fresh.chrome.top.url)
                : try? composer.render(fresh.session, notice: Self.notice(request), chrome: fresh.chrome)
            return response.map { finish($0, setCookieFor: fresh.session, true) }
        }
        guard let shown = fastPath.show(id, chrome: composer.chrome(of:)), shown.chrome.top.url == request.path else {
            return nil
        }
        return try? composer.render(shown.session, notice: Self.notice(request), chrome: shown.chrome)
    }

    /// The notice `request` asks for (`?_notice=stale`), if any.
    private static func notice(_ request: Request) -> String? {
        (try? request.queryItems)?.contains { $0.name == "_notice" && $0.value == "stale" } == true ? staleNotice : nil
    }

    private func page(_ request: Request, _ session: LoadedSession) async throws(WebError) -> SessionAnswer {
        let notice = Self.notice(request)
        let path = request.path
        if path == "/" { return SessionAnswer(result: redirect(session.tree.top?.url ?? "/"), session: session) }
        if let target = session.tree.page(at: path) {
            guard target.id != session.tree.top?.id else {
                return SessionAnswer(result: try composer.render(session, notice: notice), session: session)
            }
            let updated = try await sessions.update(session) {
                [self] (current: inout LoadedSession) async throws(WebError) in
                guard let page = current.tree.page(at: path) else { return .init(result: ()) }
                let navigation: Navigation<Step>
                do { navigation = try sessions.coordinator.visit(page.id, in: &current.tree) } catch {
                    throw .internalError("\(error)")
                }
                guard !navigation.actions.isEmpty else { return .init(result: ()) }
                let entry = PendingEntry(source: .visit, navigation: navigation, url: path)
                logNavigation(current, entry)
                return .init(result: (), entries: [entry])
            }.session
            return SessionAnswer(result: try composer.render(updated, notice: notice), session: updated)
        }
        guard let step = deepLinkStep(request) else {
            throw .notFound("There is no page at \(path).")
        }
        let updated = try await sessions.update(session) {
            [self] (current: inout LoadedSession) async throws(WebError) in
            let navigation: Navigation<Step>
            do { navigation = try await sessions.coordinator.apply(step, to: &current.tree) } catch {
                throw .internalError("\(error)")
            }
            let entry = PendingEntry(source: .deeplink, navigation: navigation, url: path)
            logNavigation(current, entry)
            return .init(result: (), entries: [entry])
        }.session
        guard let top = updated.tree.top else { throw .internalError("the session shows no page") }
        if top.url == path {
            return SessionAnswer(result: try composer.render(updated, notice: notice), session: updated)
        }
        return SessionAnswer(result: redirect(top.url), session: updated)
    }

    /// The step of the first deep-link route that matches and leads somewhere.
    func deepLinkStep(_ request: Request) -> Step? {
        for route in sessions.app.routes {
            if let values = route.match(request.pathSegments) { return route.step(values, sessions.app.context) }
        }
        return nil
    }
}
