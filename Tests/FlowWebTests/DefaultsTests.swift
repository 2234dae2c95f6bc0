import FlowCore
import FlowStore
import FlowTesting
import FlowWeb
import Foundation
import MicroHTTP
import MustacheTemplates
import Testing

/// What an app gets without writing it (FlowWebDefaults): the stylesheet, script and API
/// document under /public, the error page, and a start-up check of its page templates.
@Suite("FlowWeb's defaults")
struct DefaultsTests {
    @Test("/public serves the app's files first and FlowServer's for the names it lacks")
    func publicFiles() async throws {
        try await withSite { site in
            let browser = TestBrowser(port: site.port)
            #expect(try await browser.get("/public/site.css").text == "body { margin: 0 }")  // the site's own
            let script = try await browser.get("/public/site.js")
            #expect(
                script.status == 200
                    && script.text == String(decoding: FlowWebDefaults.publicFiles["site.js"]!, as: UTF8.self))
            #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
            let document = try await browser.get("/public/openapi.yaml")
            #expect(document.status == 200 && document.text.hasPrefix("openapi: 3.1.0"))
            let cached = try await browser.get(
                "/public/openapi.yaml", headers: [("If-None-Match", try #require(document.header("ETag")))])
            #expect(cached.status == 304)
            #expect(try await browser.get("/public/missing.css").status == 404)
            #expect(try await browser.send("POST", "/public/site.js").status == 405)
        }
    }

    @Test("without a public directory, FlowServer's files are still served")
    func noPublicDirectory() async throws {
        try await withSite(configure: { $0.publicDirectory = nil }) { site in
            let browser = TestBrowser(port: site.port)
            let css = try await browser.get("/public/site.css")
            #expect(css.status == 200 && css.text.contains(".modal"))
            #expect(try await browser.get("/public/site.png").status == 404)
            // The site's icon, where the layout links it and where browsers look without a link.
            let icon = try await browser.get("/public/favicon.svg")
            #expect(icon.status == 200 && icon.header("Content-Type") == "image/svg+xml" && icon.text.hasPrefix("<svg"))
            let probe = try await browser.get("/favicon.ico")
            #expect(probe.status == 301 && probe.location == "/public/favicon.svg")
            #expect(
                FlowWebDefaults.templates["layout"]?.contains(#"<link rel="icon" href="/public/favicon.svg""#) == true)
        }
    }

    @Test("error pages render the default error template inside the app's layout, or the app's own")
    func errorPages() async throws {
        try await withSite { site in
            let page = try await TestBrowser(port: site.port).get("/no/such/page")
            #expect(page.status == 404)
            #expect(page.text.contains("<title>Not found · Test site</title>"))
            #expect(
                page.text.contains(#"<section class="error-page">"#)
                    && page.text.contains("There is no page at /no/such/page."))
            #expect(page.text.contains(#"<a href="/a">Back to where you were</a>"#))  // the new session's top page
        }
        let site = try await TestSite.start(templates: ["error.mustache": #"<p class="oops">{{title}}: {{detail}}</p>"#]
        )
        let page = try? await TestBrowser(port: site.port).get("/no/such/page")
        await site.server.stop()
        #expect(
            page?.status == 404
                && page?.text.contains(#"<p class="oops">Not found: There is no page at /no/such/page.</p>"#) == true)
    }

    @Test(
        "a page whose template includes itself for every link answers 500 with the reference under which the server logged what failed, and the server goes on"
    )
    func runawayTemplate() async throws {
        // Each link expands the partial again for every link: without the renderer's bounds,
        // 2^100 expansions (a hung thread); with them, an error the app's author can act on, in
        // the server's log (`RequestLogTests.serverFailures`), not on the visitor's page.
        let site = try await TestSite.start(templates: [
            "pages/list.mustache": "<h1>List {{kind}}</h1>{{>pages/links}}",
            "pages/links.mustache": "{{#links}}<a href=\"{{href}}\">{{label}}</a>{{>pages/links}}{{/links}}",
        ])
        let browser = TestBrowser(port: site.port)
        let page = try? await browser.get("/a")
        let item = try? await browser.get("/items/7")
        await site.server.stop()
        #expect(page?.status == 500)
        #expect(page?.header("Content-Type")?.hasPrefix("text/html") == true)
        let text = page?.text ?? "no answer"
        #expect(
            text.contains("The server could not answer this request. Its log says what failed, under reference ")
                && !text.contains("pages/links"), "\(text)")
        #expect(item?.status == 200 && item?.text.contains("<h1>Item 7</h1>") == true)
    }

    @Test("a page without its template, or no layout, is named with the file looked for")
    func missingTemplates() throws {
        let app = try TestSite.webApp()
        var files = TestTemplates.files
        files["pages/help.mustache"] = nil
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flowweb-missing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (name, text) in files {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let error = #expect(throws: WebAppError.self) {
            try app.checkTemplates(FlowWebDefaults.templates(directory: root.path), loadedFrom: root.path + "/")
        }
        #expect(
            error?.message
                == "page \"help\" (HelpPage) has no template \"pages/help\": looked for \(root.path)/pages/help.mustache"
        )

        try "<h1>Help</h1>".write(
            to: root.appendingPathComponent("pages/help.mustache"), atomically: true, encoding: .utf8)
        try app.checkTemplates(FlowWebDefaults.templates(directory: root.path), loadedFrom: root.path)
        // FlowWebDefaults supplies the layout; a bare library does not.
        try FileManager.default.removeItem(at: root.appendingPathComponent("layout.mustache"))
        try app.checkTemplates(FlowWebDefaults.templates(directory: root.path), loadedFrom: root.path)
        let noLayout = #expect(throws: WebAppError.self) {
            try app.checkTemplates(TemplateLibrary(directory: root.path), loadedFrom: root.path)
        }
        #expect(noLayout?.message == "no layout template: looked for \(root.path)/layout.mustache")
    }

    @Test("a WebApp made from its root and pages derives its FlowApp; a name given twice is an error that says so")
    func derivedFlowApp() throws {
        let app = try TestSite.webApp()
        #expect(app.flows.root.name == "root" && app.flows.initialSteps == [.start])
        let rootListedAgain = try WebApp(
            root: RootFlow(), start: [.start, .noop], flows: [RootFlow.self], pages: [ListPage.self])
        #expect(rootListedAgain.flows.initialSteps == [.start, .noop], "the root's own type may be listed too")
        let twice = #expect(throws: WebAppError.self) {
            try WebApp(root: RootFlow(), start: [.start], pages: [ListPage.self, ListPage.self])
        }
        #expect(twice?.message == "two types are registered as \"list\": give each flow and page type its own name")
    }
}
