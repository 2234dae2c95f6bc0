import FlowCore
import FlowTesting
import MicroHTTP
import Synchronization
import Testing

@testable import FlowWeb

/// An app's own routes: its session as JSON, a webhook that needs no session, and an error.
private struct TestAppRoutes: WebRouteCollection {
    let hooks: HookLog

    struct SessionSummary: Encodable {
        var top: String?
        var greetings: Int?
        var version: Int?
    }

    func register(on router: inout Router, sessions: BrowserSessions<WebStep>) {
        router.add(.get, "/session.json") { request, _ in
            await sessions.respond(to: request) { session throws(WebError) in
                try .json(
                    SessionSummary(
                        top: session?.tree.top?.url, greetings: session?.appData(WebSessionData.self)?.greetings,
                        version: session?.version))
            }
        }
        router.add(.post, "/hooks/{source}") { request, parameters in
            hooks.record("\(parameters["source"] ?? "?"): \(String(decoding: request.body, as: UTF8.self))")
            return Response(status: .noContent)
        }
        router.add(.get, "/reports/{id}") { request, parameters in
            await sessions.respond(to: request) { _ throws(WebError) in
                throw .notFound("There is no report \(parameters["id"] ?? "?").")
            }
        }
    }
}

/// What the webhook received.
private final class HookLog: Sendable {
    private let entries = Mutex<[String]>([])
    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// Marks every answer, immediate ones included.
private struct AppHeader: SynchronousMiddleware {
    func after(_ response: inout Response, to request: Request, from start: Void) {
        response.headers["X-App"] = "test"
    }
}

@Suite("An app's own routes and middleware")
struct AppRouteTests {
    @Test("a JSON route reads the browser's session through BrowserSessions, without creating one")
    func sessionRoute() async throws {
        let app = try TestSite.webApp(routeCollections: [TestAppRoutes(hooks: HookLog())])
        try await withSite(app: app) { site in
            let stranger = try await fetch(port: site.port, "/session.json")
            #expect(stranger.status == 200 && stranger.text == "{}")
            #expect(stranger.header("Set-Cookie") == nil)
            let browser = try await storedBrowser(site)
            let summary = try await browser.get("/session.json")
            #expect(summary.header("Content-Type") == "application/json")
            #expect(summary.text == #"{"top":"/items/7","greetings":0,"version":2}"#)
            // The server agrees: the API shows the same top page and version.
            let state = try await API(browser: browser).call("GET", "/api/v1/session")
            #expect(state.text.contains(#""version":2"#) && state.text.contains(#""url":"/items/7""#))
        }
    }

    @Test("a webhook answers without a session and leaves none; an app route's error is FlowWeb's error page")
    func webhookAndErrors() async throws {
        let hooks = HookLog()
        let app = try TestSite.webApp(routeCollections: [TestAppRoutes(hooks: hooks)])
        try await withSite(app: app) { site in
            let hook = try await fetch(
                port: site.port, "/hooks/payments", method: "POST", headers: [("Content-Type", "text/plain")],
                body: Array("order 42 paid".utf8))
            #expect(hook.status == 204 && hook.header("Set-Cookie") == nil)
            #expect(hooks.all == ["payments: order 42 paid"])
            #expect(try await site.store.liveCount(now: site.clock.now) == 0)
            // Every GET may be a page: one without a page is 404; another method is 405.
            #expect(try await fetch(port: site.port, "/hooks/payments").status == 404)
            let wrongMethod = try await fetch(port: site.port, "/hooks/payments", method: "PUT")
            #expect(wrongMethod.status == 405 && wrongMethod.header("Allow") == "POST, GET, HEAD")
            #expect(wrongMethod.header("Content-Type")?.hasPrefix("text/html") == true)

            let page = try await fetch(port: site.port, "/reports/9")
            #expect(page.status == 404 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.text.contains("There is no report 9.") && page.text.contains("<title>"))
            #expect(page.header("Content-Security-Policy") == WebConfiguration.defaultContentSecurityPolicy)
            let problem = try await fetch(port: site.port, "/reports/9", headers: [("Accept", "application/json")])
            #expect(problem.status == 404 && problem.header("Content-Type") == "application/problem+json")
            #expect(problem.text.contains("There is no report 9."))
        }
    }

    @Test("an app's middleware sees every answer, immediate pages included, and app routes count as `app`")
    func middlewareAndMetrics() async throws {
        let app = try TestSite.webApp(routeCollections: [TestAppRoutes(hooks: HookLog())], middleware: [AppHeader()])
        try await withSite(app: app) { site in
            let browser = try await storedBrowser(site)
            let answers = [
                try await browser.get("/items/7"), try await browser.get("/nowhere"),
                try await browser.get("/session.json"), try await API(browser: browser).call("GET", "/api/v1/session"),
                try await browser.get("/healthz"),
            ]
            #expect(answers.map(\.status) == [200, 404, 200, 200, 200])
            #expect(answers.allSatisfy { $0.header("X-App") == "test" })
            let cookie = try #require(browser.cookie(WebConfiguration.cookieName))
            let immediate = try #require(
                site.responder.immediateResponse(
                    to: try Request(
                        method: .get, target: "/items/7",
                        headers: ["Cookie": "\(WebConfiguration.cookieName)=\(cookie)"])))
            #expect(immediate.headers["X-App"] == "test")
            let metrics = try await browser.get("/metrics")
            #expect(metrics.text.contains(#"route="app""#) && metrics.text.contains(#"route="page""#))
        }
    }

    @Test("the inspector and the metrics can be switched off; their paths are then ordinary missing pages")
    func switches() async throws {
        try await withSite(configure: {
            $0.inspectorEnabled = false
            $0.metricsEnabled = false
        }) { site in
            let browser = try await storedBrowser(site)
            #expect(try await browser.get("/_inspector").status == 404)
            #expect(try await browser.get("/metrics").status == 404)
            #expect(try await browser.get("/healthz").status == 200)
        }
    }

    @Test("a request the server refuses before routing gets FlowWeb's error page, not plain text")
    func rejectedRequest() async throws {
        let site = try await TestSite.start(maxBody: 64)
        defer { Task { await site.server.stop() } }
        let tooLarge = try await fetch(
            port: site.port, "/_step", method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(repeating: UInt8(ascii: "a"), count: 200))
        #expect(tooLarge.status == 413)
        #expect(tooLarge.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(tooLarge.header("X-Frame-Options") == "DENY")
    }
}
