import FlowStore
import FlowTesting
import FlowWeb
import MicroHTTP
import Testing

@Suite("FlowWeb's routes mounted on an app's own router")
struct MountedRoutesTests {
    @Test("an app's router serves its routes first, FlowWeb's after, behind FlowWeb's middleware and labels")
    func mounted() async throws {
        let web = FlowWebRoutes(
            app: try TestSite.webApp(), store: MemorySessionStore(),
            templates: try FlowWebDefaults.templates(directory: try TestTemplates.directory().path))
        var router = web.router()
        router.add(.get, "/status", label: "status") { _, _ in .text("ok") }
        router.add(.get, "/a", label: "shadow") { _, _ in .text("the app's /a") }
        router.add(web)
        router.add(.get, "/after", label: "after") { _, _ in .text("never") }
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0),
            responder: router.wrapped(in: web.middleware(for: router)))
        try server.start()
        let browser = TestBrowser(port: server.port)
        let status = try await browser.get("/status")
        #expect(status.status == 200 && status.text == "ok\n")
        #expect(status.header("X-Content-Type-Options") == "nosniff", "FlowWeb's security headers on the app's route")
        #expect(try await browser.get("/a").text == "the app's /a\n", "a route added first wins")
        let home = try await browser.get("/")
        #expect(home.status == 303 && home.header("Location") == "/a")
        let step = try await browser.follow("Item 7", on: "/b")
        #expect(step.status == 303 && step.header("Location") == "/items/7")
        #expect(try await browser.get("/items/7").text.contains("<h1>Item 7</h1>"))
        let state = try await API(browser: browser).call("GET", "/api/v1/session")
        #expect(state.status == 200 && state.text.contains("\"url\":\"/items/7\""))
        let after = try await browser.get("/after")
        #expect(after.status == 404 && after.text.contains("There is no page at /after."), "pages answer the rest")
        let metrics = try await browser.get("/metrics").text
        #expect(metrics.contains(#"flowserver_http_requests_total{route="status",status="200"} 1"#))
        #expect(metrics.contains(#"flowserver_http_requests_total{route="shadow",status="200"} 1"#))
        #expect(metrics.contains(#"flowserver_http_requests_total{route="api",status="200"} 1"#))
        await server.stop()
    }
}
