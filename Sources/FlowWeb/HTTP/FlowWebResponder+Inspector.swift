import FlowCore
import MicroHTTP

extension FlowWebResponder {
    /// `GET /_inspector`: the session's tree drawn as nested boxes, its app data, and its history
    /// as a table, linking to the JSON API. It shows the Coordinator pattern at work.
    func respondToInspector(_ request: Request) async -> Response {
        await withBrowserSession(request) { session async throws(WebError) in
            let entries = try await sessions.history(session, after: max(0, session.record.lastSeq - 200), limit: 200)
            let html =
                "<div class=\"inspector\"><h1>Inspector</h1>"
                + "<p>Session \(Self.escape(String(session.record.id.prefix(8))))…, version \(session.record.version). "
                + "JSON: <a href=\"/api/v1/session\">state</a>, <a href=\"/api/v1/session/history\">history</a>.</p>"
                + "<h2>Tree</h2>" + treeHTML(session.tree.root, top: session.tree.top?.id, label: "")
                + "<h2>App data</h2><pre class=\"app-data\">\(Self.escape(String(decoding: session.record.appData, as: UTF8.self)))</pre>"
                + "<h2>History</h2>" + historyHTML(entries.reversed()) + "</div>"
            return SessionAnswer(
                result: composer.layout(title: "Inspector", html: html, session: session), session: session)
        }
    }

    private func treeHTML(_ flow: FlowNode, top: NodeID?, label: String) -> String {
        var html =
            "<div class=\"box flow\"><strong>\(label)\(Self.escape(flow.flow.name))</strong> <span class=\"kind\">flow #\(flow.id) · \(flow.container.rawValue)"
        if flow.container == .tabs { html += " · tab \(flow.selected + 1) selected" }
        html += "</span>"
        for child in flow.children { html += nodeHTML(child, top: top, label: "") }
        if let presented = flow.presented { html += nodeHTML(presented, top: top, label: "presents ") }
        return html + "</div>"
    }

    private func nodeHTML(_ node: TreeNode, top: NodeID?, label: String) -> String {
        switch node {
        case .flow(let flow):
            return treeHTML(flow, top: top, label: label)
        case .page(let page):
            var html =
                "<div class=\"box page\(page.id == top ? " top" : "")\"><strong>\(label)\(Self.escape(page.page.name))</strong> "
                + "<span class=\"kind\">page #\(page.id) · <a href=\"\(Self.escape(page.url))\">\(Self.escape(page.url))</a>\(page.id == top ? " · top" : "")</span>"
            for flow in page.embedded { html += treeHTML(flow, top: top, label: "embeds ") }
            return html + "</div>"
        }
    }

    private func historyHTML(_ entries: [HistoryEntry]) -> String {
        var html =
            "<table><thead><tr><th>seq</th><th>source</th><th>step</th><th>outcome</th><th>actions</th><th>top</th></tr></thead><tbody>"
        for entry in entries {
            let step = entry.step.map { $0.canonical } ?? entry.url ?? "—"
            let adapted = entry.adaptedStep.map { " → \($0.canonical)" } ?? ""
            let actions = entry.actions.map(\.description).joined(separator: ", ")
            html +=
                "<tr><td>\(entry.seq)</td><td>\(entry.source.rawValue)</td><td>\(Self.escape(step + adapted))</td>"
                + "<td>\(entry.outcome.rawValue)</td><td>\(Self.escape(actions))</td><td>\(Self.escape(entry.top.url))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    static func escape(_ text: String) -> String { PageComposer.escape(text) }
}
