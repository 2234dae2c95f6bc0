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
            _ = try await browser.get("/_inspector/graph")
            #expect(explorations.withLock { $0 } == 1)
        }
        try await withSite { site in
            let page = try await (try await storedBrowser(site)).get("/_inspector/graph")
            #expect(page.status == 200 && page.text.contains("without a navigation graph"))
        }
    }
}
