import FlowCore

/// The inspector's HTML, piece by piece: a session's tree as nested boxes, its history as a
/// table, what changed between two trees, and the app's navigation graph.
enum InspectorHTML {
    static func difference(_ difference: TreeDifference) -> String {
        var items = difference.changes.map { "<li>\(escape($0.description))</li>" }
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

    static func tree(_ flow: FlowNode, top: NodeID?, label: String, linked: Bool = true) -> String {
        var html =
            "<div class=\"box flow\"><strong>\(label)\(escape(flow.flow.name))</strong> <span class=\"kind\">flow #\(flow.id) · \(flow.container.rawValue)"
        if flow.container == .tabs { html += " · tab \(flow.selected + 1) selected" }
        html += "</span>"
        for child in flow.children { html += node(child, top: top, label: "", linked: linked) }
        if let presented = flow.presented {
            html += node(presented, top: top, label: "presents ", linked: linked)
        }
        return html + "</div>"
    }

    private static func node(_ node: TreeNode, top: NodeID?, label: String, linked: Bool) -> String {
        switch node {
        case .flow(let flow):
            return tree(flow, top: top, label: label, linked: linked)
        case .page(let page):
            let url = escape(page.url)
            var html =
                "<div class=\"box page\(page.id == top ? " top" : "")\"><strong>\(label)\(escape(page.page.name))</strong> "
                + "<span class=\"kind\">page #\(page.id) · \(linked ? "<a href=\"\(url)\">\(url)</a>" : url)\(page.id == top ? " · top" : "")</span>"
            for flow in page.embedded { html += tree(flow, top: top, label: "embeds ", linked: linked) }
            return html + "</div>"
        }
    }

    static func history(_ entries: [HistoryEntry]) -> String {
        var html =
            "<table><thead><tr><th>seq</th><th>source</th><th>step</th><th>outcome</th><th>actions</th><th>top</th></tr></thead><tbody>"
        for entry in entries {
            let step = entry.step.map { $0.canonical } ?? entry.url ?? "—"
            let adapted = entry.adaptedStep.map { " → \($0.canonical)" } ?? ""
            let actions = entry.actions.map(\.description).joined(separator: ", ")
            html +=
                "<tr><td><a href=\"/_inspector/history/\(entry.seq)\">\(entry.seq)</a></td><td>\(entry.source.rawValue)</td><td>\(escape(step + adapted))</td>"
                + "<td>\(entry.outcome.rawValue)</td><td>\(escape(actions))</td><td>\(escape(entry.top.url))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    /// A box per flow, a row per page: the steps that leave it, each with the pages it leads to.
    static func graph(_ graph: FlowGraph, current: FlowGraph.Node?) -> String {
        let steps = graph.edges.filter { $0.kind == .step }
        var html = ""
        for flow in Set(graph.nodes.map(\.flow)).sorted() {
            html += "<div class=\"box flow\"><strong>\(escape(flow))</strong> <span class=\"kind\">flow</span>"
            for node in graph.nodes.filter({ $0.flow == flow }).sorted() {
                let isCurrent = node == current
                html +=
                    "<div class=\"box page\(isCurrent ? " top" : "")\" id=\"\(escape(node.id))\"><strong>\(escape(node.page))</strong>"
                    + (isCurrent ? " <span class=\"kind\">· this session's page</span>" : "")
                let leaving = Dictionary(grouping: steps.filter { $0.from == node }, by: \.label)
                if !leaving.isEmpty {
                    html += "<ul class=\"steps\">"
                    for label in leaving.keys.sorted() {
                        let targets = Set(leaving[label, default: []].map(\.to)).sorted().map {
                            "<a href=\"#\(escape($0.id))\">\(escape($0.flow == flow ? $0.page : $0.id))</a>"
                        }
                        html += "<li>\(escape(label)) → \(targets.joined(separator: ", "))</li>"
                    }
                    html += "</ul>"
                }
                html += "</div>"
            }
            html += "</div>"
        }
        return html
    }

    private static func escape(_ text: String) -> String { PageComposer.escape(text) }
}
