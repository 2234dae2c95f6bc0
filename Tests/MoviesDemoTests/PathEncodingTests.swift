import FlowTesting
import Testing

@testable import MoviesDemo

/// The demo's pages and deep-link routes read a path's escapes as the values they stand for
/// (issue "A newcomer's first hour", point 2): an escaped spelling of a page's path finds the
/// page, a route's parameter is decoded before it is read, and a value no route takes is a `404`
/// that leaves the session alone.
@Suite("Escapes in the demo's paths")
struct PathEncodingTests {
    @Test("escaped spellings of a page and of a deep link lead where the plain ones do; other values are 404")
    func escapes() async throws {
        try await TestServer.with(try MoviesDemo.webApp(), templates: ExplorerTests.templates) { server in
            let browser = try await server.onboardedBrowser()
            #expect(try await server.session(of: browser).topURL == "/wishlist")
            // `%31` is `1`: the deep link to movie 1, shown at its own path.
            #expect(try await browser.get("/movies/%31").status == 200)
            #expect(try await server.session(of: browser).topURL == "/movies/1")
            // Back to a page in the tree, its name spelled with escapes (lowercase hex too).
            #expect(try await browser.get("/wish%6cist").status == 200)
            #expect(try await server.session(of: browser).topURL == "/wishlist")
            for path in [
                "/movies/50%25", "/movies/1%3Fx", "/movies/1%23", "/movies/1%2F2", "/movies/%201", "/cast/%C3%A9",
                "/settings%2Fgeneral",
            ] {
                let before = try await server.session(of: browser)
                let answer = try await browser.get(path)
                let after = try await server.session(of: browser)
                #expect(answer.status == 404, "GET \(path) answered \(answer.status)")
                #expect(after.version == before.version && after.topURL == "/wishlist", "GET \(path)")
            }
            // Escapes that decode to nothing are the client's mistake.
            #expect(try await browser.get("/movies/1%2").status == 400)
        }
    }
}
