import FlowCore
import MicroHTTP

/// `/_inspector` (unless switched off): the session's tree, app data and history
/// (`/_inspector`), the session as it was after one entry (`/_inspector/history/{seq}`), and the
/// app's navigation graph (`/_inspector/graph`). It shows the Coordinator pattern at work.
struct InspectorRoutes<Step: FlowStep>: RouteCollection {
    let context: FlowWebContext<Step>
    /// The app's navigation graph, made on first use (`nil`: none is configured).
    let graph: MadeOnce<FlowGraph>?

    func register(on router: inout Router) {
        router.add(.get, "/_inspector") { request, _ in await answer(request, inspector) }
        router.add(.get, "/_inspector/graph") { request, _ in await answer(request, graphPage) }
        router.add(.get, "/_inspector/history/{seq}") { request, parameters in
            await answer(request) { session async throws(WebError) in
                try await pastPage(session, seq: try HistoryEntry.sequenceNumber(parameters["seq"]))
            }
        }
    }

    /// The page `body` makes of the browser's session, in the layout; the session unchanged.
    private func answer(
        _ request: Request, _ body: (LoadedSession) async throws(WebError) -> (title: String, html: String)
    )
        async -> Response
    {
        await context.withBrowserSession(request, changing: RequestIntent(request).changes) {
            session async throws(WebError) in
            let page = try await body(session)
            return .init(
                result: context.composer.layout(title: page.title, html: page.html, session: session), session: session)
        }
    }

    /// `model` rendered with FlowWeb's (or the app's) template `name`.
    private func render(_ name: String, _ model: some Encodable) throws(WebError) -> String {
        do { return String(decoding: try context.composer.templates.render(name, model: model), as: UTF8.self) } catch {
            throw .internalError("the inspector cannot render: \(error)")
        }
    }

    /// The session's tree drawn as nested boxes, its app data, and its history as a table, linking
    /// to the JSON API.
    private func inspector(_ session: LoadedSession) async throws(WebError) -> (title: String, html: String) {
        let entries = try await context.sessions.history(
            session, after: max(0, session.record.lastSeq - 200), limit: 200)
        let model = InspectorModels.Page(
            session: String(session.record.id.prefix(8)), version: session.record.version,
            writer: Self.writer(session.extra),
            tree: .init(session.tree.root, top: session.tree.top?.id, linked: true),
            appData: String(decoding: session.record.appData, as: UTF8.self),
            entries: entries.reversed().map(InspectorModels.Row.init))
        return ("Inspector", try render("inspector/page", model))
    }

    /// The session as it was right after entry `seq` (rebuilt by replay): the entry, the tree, the
    /// page then on top rendered read-only, and what changed between then and now.
    private func pastPage(_ session: LoadedSession, seq: Int) async throws(WebError) -> (title: String, html: String) {
        let past = try await context.sessions.past(session, at: seq)
        let entry = past.entry.entry(sessionCreatedAt: session.record.createdAt)
        var pastSession = session
        pastSession.tree = past.tree
        let difference = TreeDifference(from: past.tree, to: session.tree)
        let model = InspectorModels.Entry(
            seq: seq, previous: seq > 1 ? seq - 1 : nil, next: seq < session.record.lastSeq ? seq + 1 : nil,
            version: session.record.version, writtenLevel: session.extra.level(ofEntryVersion: entry.version),
            buildLevel: session.extra.level, entries: [InspectorModels.Row(entry)],
            tree: .init(past.tree.root, top: past.tree.top?.id, linked: false),
            pastPage: InspectorModels.inert(try context.composer.topFragment(of: pastSession)),
            appData: (try? past.tree.appDataJSON()).map { String(decoding: $0, as: UTF8.self) } ?? "?",
            unchanged: difference.changes.isEmpty && !difference.appDataChanged,
            changes: difference.changes.map(\.description), appDataChanged: difference.appDataChanged)
        return ("Inspector: entry \(seq)", try render("inspector/entry", model))
    }

    /// The app's navigation graph (``WebConfiguration/inspectorGraph``), drawn, then as a list:
    /// each flow's pages, each page with the steps that leave it and where they lead, the page
    /// this session shows marked.
    private func graphPage(_ session: LoadedSession) async throws(WebError) -> (title: String, html: String) {
        let made: FlowGraph?
        do { made = try await graph?.value() } catch {
            throw .internalError("the navigation graph cannot be made: \(error)")
        }
        let drawn = made.map { made in
            let current = session.tree.top.flatMap { top in
                session.tree.owner(ofPage: top.id).flatMap { session.tree.flow($0) }.map {
                    FlowGraph.Node(flow: $0.flow.name, page: top.page.name)
                }
            }
            return InspectorModels.Graph.Drawn(
                svg: made.svg(highlighted: current), flows: InspectorModels.GraphFlow.all(made, current: current))
        }
        return ("Inspector: navigation graph", try render("inspector/graph", InspectorModels.Graph(graph: drawn)))
    }

    /// Which version of the app last stored the session, and the migration level it is read at.
    private static func writer(_ extra: SessionExtra) -> String {
        "last stored by app version \(extra.appVersion ?? "unknown"), read at migration level \(extra.level)"
    }
}
