import FlowCore
import MicroHTTP

extension FlowWebResponder {
    /// `GET /_inspector/graph`: the app's navigation graph (``WebConfiguration/inspectorGraph``):
    /// each flow's pages, each page with the steps that leave it and where they lead, the page
    /// this session shows marked.
    func respondToGraphInspector(_ request: Request) async -> Response {
        await withBrowserSession(request) { session async throws(WebError) in
            let graph: FlowGraph?
            do { graph = try await inspectorGraph.value() } catch {
                throw .internalError("the navigation graph cannot be made: \(error)")
            }
            var html = "<div class=\"inspector\"><h1>Navigation graph</h1>"
            if let graph {
                let current = session.tree.top.flatMap { top in
                    session.tree.owner(ofPage: top.id).flatMap { session.tree.flow($0) }.map {
                        FlowGraph.Node(flow: $0.flow.name, page: top.page.name)
                    }
                }
                html +=
                    "<p>Every page the app's flows showed when explored from a new session, and the steps between them; "
                    + "this session's page is marked. <a href=\"/_inspector\">Back to the inspector</a>.</p>"
                    + graphHTML(graph, current: current)
            } else {
                html +=
                    "<p>This server was started without a navigation graph (see WebConfiguration.inspectorGraph).</p>"
            }
            return SessionAnswer(
                result: composer.layout(title: "Inspector: navigation graph", html: html + "</div>", session: session),
                session: session)
        }
    }

    /// A box per flow, a row per page: the steps that leave it, each with the pages it leads to.
    private func graphHTML(_ graph: FlowGraph, current: FlowGraph.Node?) -> String {
        let steps = graph.edges.filter { $0.kind == .step }
        var html = ""
        for flow in Set(graph.nodes.map(\.flow)).sorted() {
            html += "<div class=\"box flow\"><strong>\(Self.escape(flow))</strong> <span class=\"kind\">flow</span>"
            for node in graph.nodes.filter({ $0.flow == flow }).sorted() {
                let isCurrent = node == current
                html +=
                    "<div class=\"box page\(isCurrent ? " top" : "")\" id=\"\(Self.escape(node.id))\"><strong>\(Self.escape(node.page))</strong>"
                    + (isCurrent ? " <span class=\"kind\">· this session's page</span>" : "")
                let leaving = Dictionary(grouping: steps.filter { $0.from == node }, by: \.label)
                if !leaving.isEmpty {
                    html += "<ul class=\"steps\">"
                    for label in leaving.keys.sorted() {
                        let targets = Set(leaving[label, default: []].map(\.to)).sorted().map {
                            "<a href=\"#\(Self.escape($0.id))\">\(Self.escape($0.flow == flow ? $0.page : $0.id))</a>"
                        }
                        html += "<li>\(Self.escape(label)) → \(targets.joined(separator: ", "))</li>"
                    }
                    html += "</ul>"
                }
                html += "</div>"
            }
            html += "</div>"
        }
        return html
    }
}
