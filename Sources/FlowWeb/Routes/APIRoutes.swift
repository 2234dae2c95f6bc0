import FlowCore
import MicroHTTP

/// `/api/v1/…` (Docs/CONTRACT.md §5): JSON in and out, problem+json errors. Paths under `/api/`
/// that no call has are `404`, calls sent with another method `405`, both as problems.
struct APIRoutes<Step: FlowStep>: RouteCollection {
    let context: FlowWebContext<Step>

    private var sessions: SessionService<Step> { context.sessions }

    func register(on router: inout Router) {
        router.add(.post, "/api/v1/sessions") { request, _ in await answer(request, createSession) }
        router.add(.get, "/api/v1/session") { request, _ in await answer(request, state) }
        router.add(.delete, "/api/v1/session") { request, _ in await answer(request, delete) }
        router.add(.get, "/api/v1/session/events") { request, _ in await answer(request, events) }
        router.add(.get, "/api/v1/session/history") { request, _ in await answer(request, history) }
        router.add(.get, "/api/v1/session/history/{seq}/state") { request, parameters in
            await answer(request) { request async throws(WebError) in
                try await pastState(request, seq: parameters["seq"])
            }
        }
        router.add(.post, "/api/v1/session/steps") { request, _ in await answer(request, sendStep) }
        router.add(.post, "/api/v1/session/visits") { request, _ in await answer(request, sendVisit) }
        router.addForAnyMethod("/api/**") { request, _ in
            context.errors.response(.notFound("No API call at \(request.path)."), to: request)
        }
    }

    /// What `call` answers, or its error by the error rule.
    private func answer(_ request: Request, _ call: (Request) async throws(WebError) -> Response) async -> Response {
        do throws(WebError) { return try await call(request) } catch {
            return context.errors.response(error, to: request)
        }
    }

    /// The session `request` authenticates (see ``SessionResolver/Need/api(changing:)``).
    /// With `takesHeldCopy`, a copy this instance holds will do (``SessionResolver/Need/takesHeldCopy``).
    private func authenticated(_ request: Request, changing: Bool = false, takesHeldCopy: Bool = false)
        async throws(WebError) -> LoadedSession
    {
        let need = SessionResolver<Step>.Need.api(changing: changing)
        guard let resolved = try await context.resolver.resolve(request, takesHeldCopy ? need.withHeldCopy : need)
        else {
            throw .unauthorized("Authenticate with the session cookie or \"Authorization: Bearer <session id>\".")
        }
        return resolved.session
    }

    private func createSession(_ request: Request) async throws(WebError) -> Response {
        let session = try await sessions.create(
            client: RequestClient.of(request, trustedProxies: context.configuration.trustedProxies))
        return Response.json(
            text: CreatedDocument(session: session.record.id, state: try sessions.state(of: session)).bytes,
            status: .created)
    }

    private func state(_ request: Request) async throws(WebError) -> Response {
        Response.json(text: try sessions.state(of: try await authenticated(request)).bytes)
    }

    private func delete(_ request: Request) async throws(WebError) -> Response {
        try await sessions.delete(try await authenticated(request, changing: true))
        return Response(status: .noContent)
    }

    private func events(_ request: Request) async throws(WebError) -> Response {
        try sessions.events.stream(of: try await authenticated(request), for: request)
    }

    private func history(_ request: Request) async throws(WebError) -> Response {
        let session = try await authenticated(request)
        let (after, limit) = try Self.historyWindow(request)
        guard after.number <= session.record.lastSeq else {
            throw .notFound(
                "There is no entry \(after.text) in this session's history (the last is \(session.record.lastSeq)).")
        }
        let entries = try await sessions.history(session, after: after.number, limit: limit + 1)
        let shown = Array(entries.prefix(limit))
        return Response.json(
            text: HistoryPageDocument(entries: shown, next: entries.count > limit ? shown.last?.seq : nil).bytes)
    }

    /// The State right after history entry `seq` (Docs/CONTRACT.md §5, time travel).
    private func pastState(_ request: Request, seq text: String?) async throws(WebError) -> Response {
        let session = try await authenticated(request)
        let past = try await sessions.past(session, at: try HistoryEntry.sequenceNumber(text))
        return Response.json(
            text: try StateDocument(session: session.record.id, version: past.entry.version, tree: past.tree).bytes)
    }

    private func sendStep(_ request: Request) async throws(WebError) -> Response {
        // The step changes the session only through `SessionService.update`, which confirms a held copy.
        let session = try await authenticated(request, changing: true, takesHeldCopy: true)
        let body: StepBody = try JSONBody.decode(request)
        let step: Step
        do { step = try body.step.decode(as: Step.self) } catch {
            throw .badRequest("Cannot send this step: \(error).")
        }
        let parsed = StepRequest(
            wire: body.step, from: body.from.map(NodeID.init(rawValue:)), fromTop: body.from == nil, render: nil,
            csrf: nil, source: .api)
        return try await entryAndState(try await sessions.send(step, parsed, to: session).session)
    }

    /// Makes the page at the body's `url` visible, or follows a deep link; `404` otherwise:
    /// decided on the session as it is under its lock.
    private func sendVisit(_ request: Request) async throws(WebError) -> Response {
        // The visit changes the session only through `SessionService.update`, which confirms a held copy.
        let session = try await authenticated(request, changing: true, takesHeldCopy: true)
        let url = (try JSONBody.decode(request) as VisitBody).url
        guard url.hasPrefix("/") else { throw .badRequest("\"url\" must be a path (starting with /), got \"\(url)\".") }
        let target: Request
        do { target = try Request(method: .get, target: url) } catch {
            throw .notFound("There is no page at \(url) (\(error)).")
        }
        let path = target.pagePath
        let sessions = sessions
        let updated = try await sessions.navigate(session, source: .api, url: path) {
            (current: inout LoadedSession) async throws(WebError) in
            if let page = current.tree.page(at: path) {
                return .init(result: (), navigation: try sessions.visit(page.id, in: &current))
            } else if let deepLink = PageRoutes.deepLinkStep(target, of: sessions.app) {
                return .init(result: (), navigation: try await sessions.apply(deepLink, to: &current))
            }
            throw .notFound("There is no page at \(path).")
        }.session
        return try await entryAndState(updated)
    }

    /// The entry this request committed and the state after it; a request that committed none
    /// (a duplicate) answers the latest entry.
    private func entryAndState(_ session: LoadedSession) async throws(WebError) -> Response {
        var entry = session.committed.last
        if entry == nil {
            entry = try await sessions.history(session, after: session.record.lastSeq - 1, limit: 1).first
        }
        guard let entry else { throw .internalError("the navigation's history entry is missing") }
        return Response.json(text: NavigationDocument(entry: entry, state: try sessions.state(of: session)).bytes)
    }

    /// The query's `after` (its number and its text as sent) and `limit`. An `after` too large for
    /// an `Int` is still a sequence number the schema allows: it lies beyond every entry.
    private static func historyWindow(_ request: Request) throws(WebError) -> (
        after: (number: Int, text: String), limit: Int
    ) {
        let items: [FormField]
        do { items = try request.queryItems } catch { throw StepRequest.webError(error) }
        var after = (number: 0, text: "0")
        var limit = 100
        for item in items {
            switch item.name {
            case "after":
                let digits = !item.value.isEmpty && item.value.allSatisfy { $0.isASCII && $0.isNumber }
                guard digits || Int(item.value).map({ $0 >= 0 }) == true else {
                    throw .badRequest("\"after\" must be a sequence number (0 or more), got \"\(item.value)\".")
                }
                after = (Int(item.value) ?? .max, item.value)
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
}
