import FlowTesting
import Testing

@testable import MoviesDemo

/// HEAD is safe (RFC 9110): on every kind of demo page it answers as GET would, and the session
/// stays as it was (issue "Browser history stays true", point 5).
@Suite("HEAD on the demo's pages")
struct HeadRequestTests {
    @Test("HEAD on every kind of demo page answers as GET would and leaves the session's version and tree alone")
    func head() async throws {
        try await TestServer.with(try MoviesDemo.webApp(), templates: ExplorerTests.templates) { server in
            let browser = try await server.onboardedBrowser()
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
