import FlowCore
import MicroHTTP

/// The reload of a session's current page answered from the copy this instance holds, before the
/// session is resolved (see Performance.md and ``FastPagePath``); every other `GET` goes on to
/// ``PageRoutes/respond(to:)``.
extension PageRoutes {
    /// The session's current page when it is what `request` asks for and the session reads
    /// without waiting, or a first visit to `/` or the first page; `nil` otherwise (a visit, a
    /// deep link, an error page).
    func currentPageImmediately(_ request: Request) -> Response? {
        guard request.method == .get || request.method == .head, let fastPath, RequestIntent(request) != .speculation
        else { return nil }
        let composer = context.composer
        let path = request.pagePath
        guard let id = request.cookie(context.configuration.sessionCookieName) else {
            guard let fresh = fastPath.firstVisit(to: path, chrome: composer.chrome(of:)) else { return nil }
            let response =
                path == "/"
                ? context.redirect(fresh.chrome.top.url)
                : try? composer.render(fresh.session, notice: Self.notice(request), chrome: fresh.chrome)
            return response.map { context.finish($0, setCookieFor: fresh.session, true) }
        }
        guard let shown = fastPath.show(id, at: path, chrome: composer.chrome(of:)) else { return nil }
        return try? composer.render(shown.session, notice: Self.notice(request), chrome: shown.chrome)
    }

    /// The session's current page when it is what `request` asks for, answered once a shared
    /// store's stamp says this instance holds its current version, with no task (see
    /// ``FastPagePath``); any other answer by way of ``resolvedPage(_:)``, in a task. `false` when
    /// `request` is not a reload of the page this instance holds on top.
    func currentPageLater(_ request: Request, answer: @escaping @Sendable (Response) -> Void) -> Bool {
        currentPage(afterStampFor: request) { page in
            if let page { return answer(page) }
            Task { answer(await resolvedPage(request)) }
        }
    }

    /// The session's current page when it is what `request` asks for and a shared store's stamp
    /// says this instance holds its current version (see ``FastPagePath``); `nil` otherwise.
    func currentPageAfterStamp(_ request: Request) async -> Response? {
        await withCheckedContinuation { continuation in
            let asked = currentPage(afterStampFor: request) { continuation.resume(returning: $0) }
            if !asked { continuation.resume(returning: nil) }
        }
    }

    /// The page of ``currentPageLater(_:answer:)``, or `nil`, given to `then` once the stamp
    /// arrives; `false`, and `then` never called, when the store is not asked.
    private func currentPage(afterStampFor request: Request, then: @escaping @Sendable (Response?) -> Void) -> Bool {
        guard request.method == .get || request.method == .head, let fastPath, RequestIntent(request) != .speculation,
            let id = request.cookie(context.configuration.sessionCookieName)
        else { return false }
        let composer = context.composer
        return fastPath.showLater(id, at: request.pagePath, chrome: composer.chrome(of:)) { shown in
            then(shown.flatMap { try? composer.render($0.session, notice: Self.notice(request), chrome: $0.chrome) })
        }
    }
}
