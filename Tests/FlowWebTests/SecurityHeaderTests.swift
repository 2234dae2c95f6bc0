import FlowTesting
import MicroHTTP
import Testing

@testable import FlowWeb

@Suite("Security headers")
struct SecurityHeaderTests {
    @Test("pages, error pages and the inspector carry the strict policy and anti-framing; other answers nosniff")
    func defaults() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)
            let csrf = try #require(try await browser.get("/a").hidden("_csrf"))
            let badStep = try await browser.post(
                "/_step", form: [("_step", "greet"), ("name", ""), ("times", "x"), ("_csrf", csrf)])
            let pages = [
                try await browser.get("/items/7"), try await browser.get("/nowhere"),
                try await browser.get("/_inspector"), badStep,
            ]
            #expect(pages.map(\.status) == [200, 404, 200, 400])
            for page in pages {
                #expect(page.header("Content-Security-Policy") == WebConfiguration.defaultContentSecurityPolicy)
                #expect(page.header("X-Frame-Options") == "DENY" && page.header("X-Content-Type-Options") == "nosniff")
                #expect(page.header("Referrer-Policy") == "strict-origin-when-cross-origin")
                #expect(page.header("Cross-Origin-Opener-Policy") == "same-origin")
                #expect(page.header("Strict-Transport-Security") == nil)
            }
            let others = [
                try await API(browser: browser).call("GET", "/api/v1/session"),
                try await browser.get("/public/site.css"),
                try await browser.get("/healthz"), try await browser.get("/"), try await browser.get("/metrics"),
            ]
            #expect(others.map(\.status) == [200, 200, 200, 303, 200])
            for answer in others {
                #expect(
                    answer.header("X-Content-Type-Options") == "nosniff"
                        && answer.header("Content-Security-Policy") == nil)
            }
        }
    }

    @Test("with secure cookies: transport security everywhere and a __Host- cookie; an app's own policy")
    func secure() async throws {
        let site = try await TestSite.start(secureCookies: true) {
            $0.contentSecurityPolicy += "; img-src 'self' https://images.example"
        }
        defer { Task { await site.server.stop() } }
        let browser = TestBrowser(port: site.port)
        let home = try await browser.get("/")
        let cookie = try #require(home.header("Set-Cookie"))
        #expect(
            cookie.hasPrefix("__Host-flowserver_session=") && cookie.contains("Secure") && cookie.contains("Path=/")
                && !cookie.contains("Domain"))
        #expect(home.header("Strict-Transport-Security") == "max-age=31536000")
        let page = try await browser.get("/a")
        #expect(page.status == 200 && page.header("Set-Cookie") == nil, "the __Host- cookie names the session")
        #expect(page.header("Strict-Transport-Security") == "max-age=31536000")
        #expect(
            page.header("Content-Security-Policy") == WebConfiguration.defaultContentSecurityPolicy
                + "; img-src 'self' https://images.example")
    }
}
