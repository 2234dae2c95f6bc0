import FlowCore
import MicroHTTP

extension FlowWebResponder {
    /// `/api/v1/…` (Docs/CONTRACT.md §5): JSON in and out, problem+json errors. Paths under
    /// `/api/` that no call has are `404`, calls sent with another method `405`, both as problems.
    func registerAPI(on router: inout Router) {
        router.add(.post, "/api/v1/sessions", handler: api(FlowWebResponder.createSession))
        router.add(.get, "/api/v1/session", handler: api(FlowWebResponder.state))
        router.add(.delete, "/api/v1/session", handler: api(FlowWebResponder.deleteSession))
        router.add(.get, "/api/v1/session/events", handler: api(FlowWebResponder.sessionEvents))
        router.add(.get, "/api/v1/session/history", handler: api(FlowWebResponder.history))
        router.add(.get, "/api/v1/session/history/{seq}/state") { [unowned(unsafe) self] request, parameters in
            do throws(WebError) { return try await pastState(request, seq: parameters["seq"]) } catch {
                return error.problem
            }
        }
        router.add(.post, "/api/v1/session/steps", handler: api(FlowWebResponder.sendStep))
        router.add(.post, "/api/v1/session/visits", handler: api(FlowWebResponder.sendVisit))
        router.addForAnyMethod("/api/**") { request, _ in
            WebError.notFound("No API call at \(request.path).").problem
        }
    }

    /// A route handler that answers with `call`'s document, or its error as a problem.
    private func api(
        _ call: @escaping @Sendable (FlowWebResponder) -> @Sendable (Request) async throws(WebError) -> Response
    )
        -> Router.Handler
    {
        { [unowned(unsafe) self] request, _ in
            do throws(WebError) { return try await call(self)(request) } catch { return error.problem }
        }
    }

    private func sessionEvents(_ request: Request) async throws(WebError) -> Response {
        events(of: try await authenticated(request), for: request)
    }

    private func createSession(_ request: Request) async throws(WebError) -> Response {
        let session = try await sessions.create(client: clientAddress(request))
        return try Response.json(
            CreatedDocument(session: session.record.id, state: try StateDocument(session)), status: .created)
    }

    private func state(_ request: Request) async throws(WebError) -> Response {
        try Response.json(try StateDocument(try await authenticated(request)))
    }

    private func deleteSession(_ request: Request) async throws(WebError) -> Response {
        let session = try await authenticated(request, changing: true)
        try await sessions.delete(session)
        return Response(status: .noContent)
    }

    private func history(_ request: Request) async throws(WebError) -> Response {
        let session = try await authenticated(request)
        let (after, limit) = try historyWindow(request)
        guard after <= session.record.lastSeq else {
            throw .notFound(
                "There is no entry \(after) in this session's history (the last is \(session.record.lastSeq)).")
        }
        let entries = try await sessions.history(session, after: after, limit: limit + 1)
        let shown = Array(entries.prefix(limit))
        return try Response.json(
            HistoryPageDocument(entries: shown, next: entries.count > limit ? shown.last?.seq : nil))
    }

    /// The State right after history entry `seq` (Docs/CONTRACT.md §5, time travel).
    private func pastState(_ request: Request, seq text: String?) async throws(WebError) -> Response {
        let session = try await authenticated(request)
        let seq = try Self.sequenceNumber(text)
        let past = try await sessions.past(session, at: seq)
        return try Response.json(
            try StateDocument(session: session.record.id, version: past.entry.version, tree: past.tree))
    }

    /// A history entry's sequence number from a path, or `404`: no entry has that name.
    static func sequenceNumber(_ text: String?) throws(WebError) -> Int {
        guard let text, let seq = Int(text), seq >= 1 else {
            throw .notFound("There is no history entry \"\(text ?? "")\": entries are numbered from 1.")
        }
        return seq
    }

    private func sendStep(_ request: Request) async throws(WebError) -> Response {
        let session = try await authenticated(request, changing: true)
        let body: StepBody = try decodeJSON(request)
        let step: Step
        do { step = try body.step.decode(as: Step.self) } catch {
            throw .badRequest("Cannot send this step: \(error).")
        }
        let parsed = StepRequest(
            wire: body.step, from: body.from.map(NodeID.init(rawValue:)), fromTop: body.from == nil, render: nil,
            csrf: nil, source: .api)
        let updated = try await applyStep(step, parsed, to: session).session
        return try await entryAndState(updated)
    }

    private func sendVisit(_ request: Request) async throws(WebError) -> Response {
        let session = try await authenticated(request, changing: true)
        let body: VisitBody = try decodeJSON(request)
        let updated = try await visit(body.url, in: session)
        return try await entryAndState(updated)
    }

    /// The session named by `Authorization: Bearer <id>` or the cookie; a cookie-authenticated
    /// change needs the session's CSRF token in `X-CSRF-Token`.
    func authenticated(_ request: Request, changing: Bool = false) async throws(WebError) -> LoadedSession {
        if let authorization = request.headers["Authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw .unauthorized("Use \"Authorization: Bearer <session id>\".")
            }
            guard var session = try await sessions.loadForUse(String(parts[1])) else {
                throw .unauthorized(
                    "This session does not exist or has expired; create one with POST /api/v1/sessions.")
            }
            session.client = clientAddress(request)
            return session
        }
        guard let id = request.cookie(configuration.sessionCookieName), var session = try await sessions.loadForUse(id)
        else {
            throw .unauthorized("Authenticate with the session cookie or \"Authorization: Bearer <session id>\".")
        }
        if changing {
            guard let token = request.headers["X-CSRF-Token"], Self.constantTimeEqual(token, session.record.csrfToken)
            else {
                throw .forbidden("Cookie-authenticated changes need the session's CSRF token in X-CSRF-Token.")
            }
        }
        session.client = clientAddress(request)
        return session
    }

    private func historyWindow(_ request: Request) throws(WebError) -> (after: Int, limit: Int) {
        let items: [FormField]
        do { items = try request.queryItems } catch { throw Self.webError(error) }
        var after = 0
        var limit = 100
        for item in items {
            switch item.name {
            case "after":
                guard let value = Int(item.value), value >= 0 else {
                    throw .badRequest("\"after\" must be a sequence number (0 or more), got \"\(item.value)\".")
                }
                after = value
            case "limit":
                guard let value = Int(item.value), (1...500).contains(value) else {
                    throw .badRequest("\"limit\" must be 1...500, got \"\(item.value)\".")
                }
                limit = value
            default:
                continue
            }
        }
        return (after, limit)
    }

    /// Makes the page at `url` visible, or follows a deep link; `404` otherwise.
    private func visit(_ url: String, in session: LoadedSession) async throws(WebError) -> LoadedSession {
        guard url.hasPrefix("/") else { throw .badRequest("\"url\" must be a path (starting with /), got \"\(url)\".") }
        let request: Request
        do { request = try Request(method: .get, target: url) } catch {
            throw .notFound("There is no page at \(url) (\(error)).")
        }
        let path = request.path
        let deepLink = session.tree.pages(at: path).isEmpty ? deepLinkStep(request) : nil
        guard !session.tree.pages(at: path).isEmpty || deepLink != nil else {
            throw .notFound("There is no page at \(path).")
        }
        let updated = try await sessions.update(session) {
            [self] (current: inout LoadedSession) async throws(WebError) in
            let navigation: Navigation<Step>
            do {
                if let page = current.tree.page(at: path) {
                    navigation = try sessions.coordinator.visit(page.id, in: &current.tree)
                } else if let deepLink {
                    navigation = try await sessions.coordinator.apply(deepLink, to: &current.tree)
                } else {
                    throw WebError.notFound("There is no page at \(path).")
                }
            } catch let error as WebError {
                throw error
            } catch {
                throw .internalError("\(error)")
            }
            let entry = PendingEntry(source: .api, navigation: navigation, url: path)
            logNavigation(current, entry)
            return .init(result: (), entries: [entry])
        }.session
        return updated
    }

    private func entryAndState(_ session: LoadedSession) async throws(WebError) -> Response {
        // The entry this request committed; a request that committed none (a duplicate) answers
        // the latest one.
        var entry = session.committed.last
        if entry == nil {
            entry = try await sessions.history(session, after: session.record.lastSeq - 1, limit: 1).first
        }
        guard let entry else { throw .internalError("the navigation's history entry is missing") }
        return try Response.json(NavigationDocument(entry: entry, state: try StateDocument(session)))
    }

    private func decodeJSON<Body: Decodable>(_ request: Request) throws(WebError) -> Body {
        let type: MediaType?
        do { type = try request.contentType } catch { throw .badRequest("\(error)") }
        guard let type, type.hasSameEssence(as: .json) else {
            throw .unsupportedMediaType("Send JSON (Content-Type: application/json).")
        }
        do {
            return try CompactJSONDecoder().decode(Body.self, from: request.body)
        } catch let error as DecodingError {
            throw .badRequest("The JSON body is not what this call takes: \(Self.describe(error)).")
        } catch {
            throw .badRequest("The JSON body is not what this call takes: \(error).")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.isEmpty
                ? context.debugDescription
                : "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\": \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }
}
