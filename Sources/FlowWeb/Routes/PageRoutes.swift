import FlowCore
import MicroHTTP

/// `GET /`, page visits, deep links and `404` (Docs/CONTRACT.md §2): every `GET` no other route
/// answers. A reload of the session's current page may be answered before the session is resolved
/// (`currentPageImmediately` and `currentPageAfterStamp`, in `FastPath/`).
struct PageRoutes<Step: FlowStep>: RouteCollection {
    /// The notice shown after a step from a page that is no longer current.
    static var staleNotice: String { "That action came from a page that is no longer current, so nothing was done." }

    let context: FlowWebContext<Step>
    let fastPath: FastPagePath?

    func register(on router: inout Router) {
        router.add(
            .get, "/**", immediate: { request, _ in currentPageImmediately(request) },
            later: { request, _, answer in currentPageLater(request, answer: answer) },
            handler: { request, _ in await respond(to: request) })
    }

    func respond(to request: Request) async -> Response {
        if let shown = await currentPageAfterStamp(request) { return shown }
        return await resolvedPage(request)
    }

    /// The answer to `request` from the session resolved (read, or changed by a visit).
    func resolvedPage(_ request: Request) async -> Response {
        let intent = RequestIntent(request)
        // A visit changes the session only through `SessionService.update`, which confirms a held
        // copy; `page` confirms it before answering anything else.
        return await context.withBrowserSession(request, changing: intent.changes, takesHeldCopy: true) {
            session async throws(WebError) in
            guard intent != .speculation else { throw RequestIntent.declined }
            return try await page(request, session, changing: intent.changes)
        }
    }

    /// The notice `request` asks for (`?_notice=stale`), if any.
    static func notice(_ request: Request) -> String? {
        (try? request.queryItems)?.contains { $0.name == "_notice" && $0.value == "stale" } == true ? staleNotice : nil
    }

    /// The answer to `request` on `session`; with `changing` false, what it would be, the session
    /// left as it is (``RequestIntent/look``).
    private func page(_ request: Request, _ session: LoadedSession, changing: Bool) async throws(WebError)
        -> FlowWebContext<Step>.SessionAnswer
    {
        let (sessions, composer) = (context.sessions, context.composer)
        let notice = Self.notice(request)
        let path = request.pagePath
        // The page is looked up once (a walk of the tree unless it is the top) and reused under
        // the lock while the session is still at this version.
        let target = path == "/" ? nil : session.tree.page(at: path)
        let showsTop = target != nil && target?.id == session.tree.top?.id
        // An answer that navigates nothing comes from a copy the store confirmed.
        guard session.isConfirmed || !(path == "/" || showsTop) else {
            return try await page(request, try await sessions.confirmed(session), changing: changing)
        }
        if path == "/" { return .init(result: context.redirect(session.tree.top?.url ?? "/"), session: session) }
        if showsTop { return .init(result: try composer.render(session, notice: notice), session: session) }
        // Visit the page if the session has it, else follow a deep link: decided on the session as
        // it is under the lock.
        let (app, version, found) = (sessions.app, session.record.version, target?.id)
        let updated = try await sessions.navigate(session, source: .visit, url: path, changing: changing) {
            (current: inout LoadedSession) async throws(WebError) in
            if let page = current.record.version == version ? found : current.tree.page(at: path)?.id {
                let navigation = try sessions.visit(page, in: &current)
                return .init(result: (), navigation: navigation.actions.isEmpty ? nil : navigation)
            }
            guard let step = Self.deepLinkStep(request, of: app) else {
                throw .notFound("There is no page at \(path).")
            }
            return .init(result: (), navigation: try await sessions.apply(step, to: &current), source: .deeplink)
        }.session
        guard let top = updated.tree.top else { throw .internalError("the session shows no page") }
        if top.url == path {
            return .init(result: try composer.render(updated, notice: notice), session: updated)
        }
        return .init(result: context.redirect(top.url), session: updated)
    }

    /// The step of `app`'s first deep-link route that matches `request` and leads somewhere.
    static func deepLinkStep(_ request: Request, of app: WebApp<Step>) -> Step? {
        for route in app.deepLinks {
            if let values = route.match(request.pathSegments) { return route.step(values, app.context) }
        }
        return nil
    }
}
