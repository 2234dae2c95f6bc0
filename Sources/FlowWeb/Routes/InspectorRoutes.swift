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

    /// The session's tree drawn as nested boxes, its app data, and its history as a table, linking
    /// to the JSON API.
    private func inspector(_ session: LoadedSession) async throws(WebError) -> (title: String, html: String) {
        let entries = try await context.sessions.history(
            session, after: max(0, session.record.lastSeq - 200), limit: 200)
        let appData = String(decoding: session.record.appData, as: UTF8.self)
        let html =
            "<div class=\"inspector\"><h1>Inspector</h1>"
            + "<p>Session \(escape(String(session.record.id.prefix(8))))…, version \(session.record.version), "
            + "\(escape(Self.writer(session.extra))). "
            + "JSON: <a href=\"/api/v1/session\">state</a>, <a href=\"/api/v1/session/history\">history</a>. "
            + "<a href=\"/_inspector/graph\">The app's navigation graph</a>.</p>"
            + "<h2>Tree</h2>" + InspectorHTML.tree(session.tree.root, top: session.tree.top?.id, label: "")
            + "<h2>App data</h2><pre class=\"app-data\">\(escape(appData))</pre>"
            + "<h2>History</h2>" + InspectorHTML.history(entries.reversed()) + "</div>"
        return ("Inspector", html)
    }

    /// The session as it was right after entry `seq` (rebuilt by replay): the entry, the tree, the
    /// page then on top rendered read-only, and what changed between then and now.
    private func pastPage(_ session: LoadedSession, seq: Int) async throws(WebError) -> (title: String, html: String) {
        let past = try await context.sessions.past(session, at: seq)
        let entry = past.entry.entry(sessionCreatedAt: session.record.createdAt)
        var pastSession = session
        pastSession.tree = past.tree
        var html =
            "<div class=\"inspector\"><h1>Entry \(seq)</h1><p class=\"entry-nav\">"
            + (seq > 1 ? "<a href=\"/_inspector/history/\(seq - 1)\">← entry \(seq - 1)</a> · " : "")
            + "<a href=\"/_inspector\">now (version \(session.record.version))</a>"
            + (seq < session.record.lastSeq
                ? " · <a href=\"/_inspector/history/\(seq + 1)\">entry \(seq + 1) →</a>" : "")
            + " · <a href=\"#since\">what changed since</a>"
            + " · JSON: <a href=\"/api/v1/session/history/\(seq)/state\">state</a></p>"
        html +=
            "<h2>The entry</h2><p class=\"written\">Written at migration level "
            + "\(session.extra.level(ofEntryVersion: entry.version)) (this build: \(session.extra.level)).</p>"
            + InspectorHTML.history([entry])
        html += "<h2>Tree</h2>" + InspectorHTML.tree(past.tree.root, top: past.tree.top?.id, label: "", linked: false)
        html +=
            "<h2>Page on top</h2><div class=\"past-page\">"
            + InspectorHTML.inert(try context.composer.topFragment(of: pastSession)) + "</div>"
        let appData = (try? past.tree.appDataJSON()).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        html += "<h2>App data</h2><pre class=\"app-data\">\(escape(appData))</pre>"
        html +=
            "<h2 id=\"since\">From then to now</h2>"
            + InspectorHTML.difference(TreeDifference(from: past.tree, to: session.tree))
        return ("Inspector: entry \(seq)", html + "</div>")
    }

    /// The app's navigation graph (``WebConfiguration/inspectorGraph``), drawn, then as a list:
    /// each flow's pages, each page with the steps that leave it and where they lead, the page
    /// this session shows marked.
    private func graphPage(_ session: LoadedSession) async throws(WebError) -> (title: String, html: String) {
        let made: FlowGraph?
        do { made = try await graph?.value() } catch {
            throw .internalError("the navigation graph cannot be made: \(error)")
        }
        var html = "<div class=\"inspector\"><h1>Navigation graph</h1>"
        if let made {
            let current = session.tree.top.flatMap { top in
                session.tree.owner(ofPage: top.id).flatMap { session.tree.flow($0) }.map {
                    FlowGraph.Node(flow: $0.flow.name, page: top.page.name)
                }
            }
            html +=
                "<p>Every page the app's flows showed when explored from a new session, and the steps between them; "
                + "this session's page is marked. <a href=\"/_inspector\">Back to the inspector</a>.</p>"
                + "<div class=\"graph\" tabindex=\"0\" role=\"region\" aria-label=\"The navigation graph, drawn\">"
                + made.svg(highlighted: current) + "</div>"
                + "<details><summary>The same as a list</summary>" + InspectorHTML.graph(made, current: current)
                + "</details>"
        } else {
            html += "<p>This server was started without a navigation graph (see WebConfiguration.inspectorGraph).</p>"
        }
        return ("Inspector: navigation graph", html + "</div>")
    }

    /// Which version of the app last stored the session, and the migration level it is read at.
    private static func writer(_ extra: SessionExtra) -> String {
        "last stored by app version \(extra.appVersion ?? "unknown"), read at migration level \(extra.level)"
    }

    private func escape(_ text: String) -> String { PageComposer.escape(text) }
}
