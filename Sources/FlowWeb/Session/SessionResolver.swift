import FlowCore
import MicroHTTP

/// Whose session a request is: the one place that reads the session cookie and the bearer
/// token, checks the CSRF token of a change a cookie authenticates, renews a session in use, and
/// mints a browser's new session. Every handler asks it, saying what it needs (``Need``).
struct SessionResolver<Step: FlowStep>: Sendable {
    /// What a handler needs of a request's session.
    struct Need: Sendable {
        /// Where the session's id may come from.
        enum Credentials: Sendable {
            /// The session cookie.
            case cookie
            /// `Authorization: Bearer <id>` when sent, else the session cookie.
            case cookieOrBearer
        }

        /// What a request without a live session gets.
        enum Missing: Sendable {
            /// A new session at the app's initial state, not stored (its cookie is still to set).
            case fresh
            /// `401`.
            case unauthorized
            /// No session (`nil`).
            case none
        }

        var credentials: Credentials
        var missing: Missing
        /// Whether a session due for renewal is renewed (see ``SessionService/loadForUse(_:)``).
        var renews: Bool
        /// Whether a change authenticated by the cookie needs the session's CSRF token in
        /// `X-CSRF-Token` (forms send theirs in a field: ``SessionResolver/checkFormToken(_:of:)``).
        var checksCSRFHeader = false
        /// Whether a live copy this instance holds will do, unconfirmed by the store
        /// (``SessionService/loadForChange(_:)``): for a handler that changes the session only
        /// through ``SessionService/update(_:_:)`` and answers nothing else from it unconfirmed.
        var takesHeldCopy = false

        /// A browser's page, step or inspector page: the cookie's session, renewed, or a new one.
        static var browser: Need { Need(credentials: .cookie, missing: .fresh, renews: true) }
        /// A browser's request that looks without changing anything (``RequestIntent/look``): the
        /// cookie's session, not renewed, or a new one.
        static var looking: Need { Need(credentials: .cookie, missing: .fresh, renews: false) }
        /// An API call (Docs/CONTRACT.md §5): the bearer's or the cookie's session, renewed, or
        /// `401`; a change by cookie needs `X-CSRF-Token`.
        static func api(changing: Bool) -> Need {
            Need(credentials: .cookieOrBearer, missing: .unauthorized, renews: true, checksCSRFHeader: changing)
        }
        /// This need, taking a copy this instance holds (see ``takesHeldCopy``), which is renewed
        /// when due.
        var withHeldCopy: Need {
            var need = self
            need.takesHeldCopy = true
            return need
        }
        /// A read that never creates, stores or renews a session (event streams, an app's routes).
        static var reading: Need { Need(credentials: .cookie, missing: .none, renews: false) }
    }

    /// A request's session, and whether it was minted for this request (so its cookie is set).
    struct Resolved: Sendable {
        var session: LoadedSession
        var isNew: Bool
    }

    let sessions: SessionService<Step>
    let cookieName: String
    /// The proxies whose forwarded address counts (see ``WebConfiguration/trustedProxies``).
    let trustedProxies: Set<String>

    /// The session of `request` as `need` says, with the client's address set; `nil` only when
    /// `need` allows none.
    ///
    /// - Throws: ``WebError`` `401` for missing or unknown credentials an API call needs, `403`
    ///   for a missing or wrong CSRF token, `503` when the store fails.
    func resolve(_ request: Request, _ need: Need) async throws(WebError) -> Resolved? {
        var found: LoadedSession?
        var byCookie = false
        if need.credentials == .cookieOrBearer, let authorization = request.headers["Authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw .unauthorized("Use \"Authorization: Bearer <session id>\".")
            }
            found = try await load(String(parts[1]), need)
            guard found != nil else {
                throw .unauthorized(
                    "This session does not exist or has expired; create one with POST /api/v1/sessions.")
            }
        } else if let id = request.cookie(cookieName) {
            found = try await load(id, need)
            byCookie = true
        }
        var resolved: Resolved
        if let found {
            resolved = Resolved(session: found, isNew: false)
        } else {
            switch need.missing {
            case .none: return nil
            case .unauthorized:
                throw .unauthorized("Authenticate with the session cookie or \"Authorization: Bearer <session id>\".")
            case .fresh: resolved = Resolved(session: try await sessions.fresh(), isNew: true)
            }
        }
        if need.checksCSRFHeader, byCookie, !resolved.isNew {
            guard let token = request.headers["X-CSRF-Token"],
                Self.constantTimeEqual(token, resolved.session.record.csrfToken)
            else {
                throw .forbidden("Cookie-authenticated changes need the session's CSRF token in X-CSRF-Token.")
            }
        }
        resolved.session.client = RequestClient.of(request, trustedProxies: trustedProxies)
        return resolved
    }

    /// Checks the CSRF token a form sent (`_csrf`) against `session`'s.
    ///
    /// - Throws: ``WebError`` `403` when it is missing or wrong.
    func checkFormToken(_ token: String?, of session: LoadedSession) throws(WebError) {
        guard let token, Self.constantTimeEqual(token, session.record.csrfToken) else {
            throw .forbidden("The form's security token is missing or out of date. Reload the page and try again.")
        }
    }

    private func load(_ id: String, _ need: Need) async throws(WebError) -> LoadedSession? {
        if need.takesHeldCopy { return try await sessions.loadForChange(id) }
        return need.renews ? try await sessions.loadForUse(id) : try await sessions.load(id)
    }

    /// Compares secrets in time that does not depend on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
