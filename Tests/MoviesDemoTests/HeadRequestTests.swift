import FlowTesting
import Foundation
import Testing

@testable import MoviesDemo

/// HEAD is safe (RFC 9110): on every kind of demo page it answers as GET would, and the session
/// stays as it was (issue "Browser history stays true", point 5).
@Suite("HEAD on the demo's pages")
struct HeadRequestTests {
    /// A browser holding a new session onboarded through the API.
    private func onboardedBrowser(_ server: TestServer) async throws -> TestBrowser {
        let api = server.browser()
        let created = try await api.send("POST", "/api/v1/sessions")
        let document = try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any]
        let id = try #require(document?["session"] as? String)
        for step in [
            #"{"step":{"name":"userIsLoggedIn","params":{"name":"Ada"}}}"#,
            #"{"step":{"name":"apiKeyIsFilledIn","params":{"apiKey":"k"}}}"#,
        ] {
            let sent = try await api.send(
                "POST", "/api/v1/session/steps",
                headers: [("Authorization", "Bearer \(id)"), ("Content-Type", "application/json")],
                body: Array(step.utf8))
            #expect(sent.status == 200)
        }
        let browser = server.browser()
        browser.setCookie("flowserver_session", id)
        return browser
    }

    @Test("HEAD on every kind of demo page answers as GET would and leaves the session's version and tree alone")
    func head() async throws {
        try await TestServer.with(try MoviesDemo.webApp(), templates: ExplorerTests.templates) { server in
            let browser = try await onboardedBrowser(server)
            #expect(try await server.session(of: browser).topURL == "/wishlist")
            // The top page, tabs, deep links, a modal, onboarding (gone), a page that is not there.
            for path in [
                "/wishlist", "/watched", "/trending", "/movies/1", "/cast/2", "/settings", "/about", "/wishlist",
                "/onboarding/login", "/movies/999999", "/",
            ] {
                let before = try await server.session(of: browser)
                let head = try await browser.send("HEAD", path)
                let after = try await server.session(of: browser)
                #expect(after.version == before.version && after.topURL == before.topURL, "HEAD \(path)")
                #expect(head.body.isEmpty)
                let get = try await browser.get(path)
                #expect(head.status == get.status, "HEAD \(path) answered \(head.status), GET \(get.status)")
                #expect(head.header("Content-Type") == get.header("Content-Type") && head.location == get.location)
            }
        }
    }
}
