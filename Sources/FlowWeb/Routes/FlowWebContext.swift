import FlowCore
import MicroHTTP

/// What FlowWeb's route collections share, made before the router: the sessions, whose session
/// a request is, rendering, the error rule and the configuration; and the one way a browser's
/// request is answered on its session (``withBrowserSession(_:_:)``).
final class FlowWebContext<Step: FlowStep>: Sendable {
    /// What a request on the browser's session answers (`result`), and the session as the request
    /// left it.
    typealias SessionAnswer = SessionService<Step>.UpdatedSession<Response>

    let sessions: SessionService<Step>
    let resolver: SessionResolver<Step>
    let composer: PageComposer
    let errors: ErrorAnswers
    /// The security headers of every answer.
    let security: SecurityHeaders
    let configuration: WebConfiguration

    init(
        sessions: SessionService<Step>, composer: PageComposer, security: SecurityHeaders,
        configuration: WebConfiguration
    ) {
        self.sessions = sessions
        resolver = SessionResolver(
            sessions: sessions, cookieName: configuration.sessionCookieName,
            trustedProxies: configuration.trustedProxies)
        self.composer = composer
        errors = ErrorAnswers(composer: composer, logger: sessions.logger)
        self.security = security
        self.configuration = configuration
    }

    /// Answers `request` with what `body` makes of the browser's session — the cookie's, or a new
    /// one at the app's initial state, not stored — with the cookie of a new session on a page or
    /// a redirect, and a thrown error answered by the error rule, linking to the session's current
    /// page. `body` returns its answer and the session as it left it.
    /// A request that only looks (`changing` false) does not renew the session. With
    /// `takesHeldCopy`, a change gets the copy this instance holds, unconfirmed (see
    /// ``SessionResolver/Need/takesHeldCopy``).
    func withBrowserSession(
        _ request: Request, changing: Bool = true, takesHeldCopy: Bool = false,
        _ body: (LoadedSession) async throws(WebError) -> SessionAnswer
    ) async -> Response {
        var resolved: SessionResolver<Step>.Resolved?
        do throws(WebError) {
            let need: SessionResolver<Step>.Need =
                changing ? (takesHeldCopy ? .browser.withHeldCopy : .browser) : .looking
            guard let found = try await resolver.resolve(request, need) else {
                throw .internalError("a browser's request found no session")
            }
            resolved = found
            let answer = try await body(found.session)
            return finish(answer.result, setCookieFor: answer.session, found.isNew)
        } catch {
            let session = resolved?.session
            return finish(
                errors.response(error, to: request, topURL: session?.tree.top?.url), setCookieFor: session,
                resolved?.isNew ?? false)
        }
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

    /// `303 See Other` to `location`, not to be cached.
    func redirect(_ location: String) -> Response {
        var response = Response.seeOther(location)
        response.headers["Cache-Control"] = "no-store"
        security.complete(&response)
        return response
    }

    private func sessionCookie(_ id: String) -> String {
        SetCookie(
            name: configuration.sessionCookieName, value: id, path: "/", maxAge: configuration.sessionTTL,
            httpOnly: true, secure: configuration.secureCookies, sameSite: .lax
        ).headerValue
    }
}
