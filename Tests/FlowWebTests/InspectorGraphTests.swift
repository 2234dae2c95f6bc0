import FlowTesting
import Synchronization
import Testing

@testable import FlowWeb

@Suite("The inspector's navigation graph")
struct InspectorGraphTests {
    @Test("/_inspector/graph draws the explored graph, this session's page marked; made once, on first use")
    func graph() async throws {
        let explorations = Mutex(0)
        let directory = try TestTemplates.directory()
        let app = try TestSite.webApp()
        try await withSite(configure: { configuration in
            configuration.inspectorGraph = {
                explorations.withLock { $0 += 1 }
                return try await FlowExplorer(app: app, templatesDirectory: directory.path).explore().graph
            }
        }) { site in
            let browser = try await storedBrowser(site)  // on item 7, in the first tab's list flow
            let page = try await browser.get("/_inspector/graph")
            #expect(page.status == 200)
            #expect(page.text.contains("<div class=\"box page top\" id=\"list.item\"><strong>item</strong>"))
            #expect(page.text.contains("<div class=\"box page\" id=\"list.list\"><strong>list</strong>"))
            #expect(page.text.contains("<li>itemIsPicked → <a href=\"#list.item\">item</a></li>"))
            // Drawn: the session's page outlined, an arrow for the step.
            #expect(page.text.contains(#"aria-label="The navigation graph, drawn"><svg"#))
            #expect(page.text.contains(#"<g id="graph-list.item"><title>list.item (this session&#39;s page)</title>"#))
            #expect(page.text.contains(#"<title>list.list → list.item: itemIsPicked</title>"#))
            _ = try await browser.get("/_inspector/graph")
            #expect(explorations.withLock { $0 } == 1)
        }
        try await withSite { site in
            let page = try await (try await storedBrowser(site)).get("/_inspector/graph")
            #expect(page.status == 200 && page.text.contains("without a navigation graph"))
        }
    }

    @Test("the drawing: a box per page coloured by flow, one arrow per pair of pages, text escaped, the start first")
    func svg() {
        let (start, form, done) = (
            FlowGraph.Node(flow: "main", page: "start"), FlowGraph.Node(flow: "main", page: "<form>"),
            FlowGraph.Node(flow: "other", page: "done")
        )
        let graph = FlowGraph(
            nodes: [start, form, done],
            edges: [
                .init(from: start, to: form, kind: .step, label: "formIsRequired"),
                .init(from: start, to: form, kind: .step, label: "again"),
                .init(from: form, to: done, kind: .step, label: "formIsSent"),
                .init(from: done, to: start, kind: .visit, label: "visit"),
                .init(from: done, to: start, kind: .step, label: "restart"),
            ], start: start)
        let svg = graph.svg(title: "A & B", highlighted: done)
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg""#) && svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"<title id="graph-title">A &amp; B</title>"#))
        #expect(svg.components(separatedBy: "marker-end=").count - 1 == 3, "one arrow per pair of pages, steps only")
        #expect(svg.contains("main.start → main.&lt;form&gt;: again, formIsRequired"))
        #expect(svg.contains(#">&lt;form&gt;</text>"#) && !svg.contains("<form>"))
        #expect(svg.contains(##"stroke="#b3261e""##) && svg.components(separatedBy: "#b3261e").count == 2)
        // Columns from the start: start, then the form, then done.
        func x(_ node: FlowGraph.Node) -> Int? {
            guard
                let group = svg.range(
                    of:
                        "<g id=\"graph-\(node.id.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;"))\">"
                ),
                let x = svg[group.upperBound...].firstMatch(of: /<rect x="(\d+)"/)
            else { return nil }
            return Int(x.1)
        }
        let columns = [start, form, done].compactMap(x)
        #expect(columns.count == 3 && columns == columns.sorted() && Set(columns).count == 3, "\(columns)")
    }
}
