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
                + "JSON: <a href=\"/api/v1/session\">state</a>, <a href=\"/api/v1/session/history\">history</a>. "
                + "<a href=\"/_inspector/graph\">The app's navigation graph</a>.</p>"
                + "<h2>Tree</h2>" + treeHTML(session.tree.root, top: session.tree.top?.id, label: "")
                + "<h2>App data</h2><pre class=\"app-data\">\(Self.escape(String(decoding: session.record.appData, as: UTF8.self)))</pre>"
                + "<h2>History</h2>" + historyHTML(entries.reversed()) + "</div>"
            return SessionAnswer(
                result: composer.layout(title: "Inspector", html: html, session: session), session: session)
        }
    }

    /// `GET /_inspector/history/{seq}`: the session as it was right after entry `seq` (rebuilt by
    /// replay): the entry, the tree, the page then on top rendered read-only, and what changed
    /// between then and now.
    func respondToPastInspector(_ request: Request, seq text: String?) async -> Response {
        await withBrowserSession(request) { session async throws(WebError) in
            let seq = try Self.sequenceNumber(text)
            let past = try await sessions.past(session, at: seq)
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
            html += "<h2>The entry</h2>" + historyHTML([entry])
            html += "<h2>Tree</h2>" + treeHTML(past.tree.root, top: past.tree.top?.id, label: "", linked: false)
            html +=
                "<h2>Page on top</h2><div class=\"past-page\">"
                + Self.inert(try composer.topFragment(of: pastSession)) + "</div>"
            let appData = (try? past.tree.appDataJSON()).map { String(decoding: $0, as: UTF8.self) } ?? "?"
            html += "<h2>App data</h2><pre class=\"app-data\">\(Self.escape(appData))</pre>"
            html +=
                "<h2 id=\"since\">From then to now</h2>"
                + differenceHTML(TreeDifference(from: past.tree, to: session.tree))
            html += "</div>"
            return SessionAnswer(
                result: composer.layout(title: "Inspector: entry \(seq)", html: html, session: session),
                session: session)
        }
    }

    private func differenceHTML(_ difference: TreeDifference) -> String {
        var items = difference.changes.map { "<li>\(Self.escape($0.description))</li>" }
        if difference.appDataChanged { items.append("<li>the app data changed</li>") }
        return items.isEmpty
            ? "<p>Nothing changed since.</p>" : "<ul class=\"difference\">" + items.joined() + "</ul>"
    }

    /// `html` with its links and forms made inert: addresses kept as `data-` attributes, the
    /// controls disabled.
    static func inert(_ html: String) -> String {
        "<fieldset disabled>"
            + html.replacingOccurrences(of: " href=\"", with: " data-href=\"")
            .replacingOccurrences(of: " action=\"", with: " data-action=\"")
            .replacingOccurrences(of: " formaction=\"", with: " data-formaction=\"")
            + "</fieldset>"
    }

    private func treeHTML(_ flow: FlowNode, top: NodeID?, label: String, linked: Bool = true) -> String {
        var html =
            "<div class=\"box flow\"><strong>\(label)\(Self.escape(flow.flow.name))</strong> <span class=\"kind\">flow #\(flow.id) · \(flow.container.rawValue)"
        if flow.container == .tabs { html += " · tab \(flow.selected + 1) selected" }
        html += "</span>"
        for child in flow.children { html += nodeHTML(child, top: top, label: "", linked: linked) }
        if let presented = flow.presented {
            html += nodeHTML(presented, top: top, label: "presents ", linked: linked)
        }
        return html + "</div>"
    }

    private func nodeHTML(_ node: TreeNode, top: NodeID?, label: String, linked: Bool) -> String {
        switch node {
        case .flow(let flow):
            return treeHTML(flow, top: top, label: label, linked: linked)
        case .page(let page):
            let url = Self.escape(page.url)
            var html =
                "<div class=\"box page\(page.id == top ? " top" : "")\"><strong>\(label)\(Self.escape(page.page.name))</strong> "
                + "<span class=\"kind\">page #\(page.id) · \(linked ? "<a href=\"\(url)\">\(url)</a>" : url)\(page.id == top ? " · top" : "")</span>"
            for flow in page.embedded { html += treeHTML(flow, top: top, label: "embeds ", linked: linked) }
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
                "<tr><td><a href=\"/_inspector/history/\(entry.seq)\">\(entry.seq)</a></td><td>\(entry.source.rawValue)</td><td>\(Self.escape(step + adapted))</td>"
                + "<td>\(entry.outcome.rawValue)</td><td>\(Self.escape(actions))</td><td>\(Self.escape(entry.top.url))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    static func escape(_ text: String) -> String { PageComposer.escape(text) }
}
