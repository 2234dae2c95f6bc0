import FlowStore
import FlowTesting
import Testing

@testable import FlowWeb

/// Requests that are not a person navigating leave the session alone (issue "Browser history stays
/// true", points 1–3): HEAD, speculative loads, and loads that are no navigation of the window.
@Suite("Requests that are not a person navigating")
struct RequestIntentTests {
    static let speculative: [(String, String)] = [
        ("Sec-Purpose", "prefetch"), ("Sec-Purpose", "prefetch;prerender"), ("Purpose", "prefetch"),
        ("X-Sec-Purpose", "prefetch"), ("X-Purpose", "preview"), ("X-Moz", "prefetch"),
    ]
    static let notNavigations: [[(String, String)]] = [
        [("Sec-Fetch-Mode", "cors"), ("Sec-Fetch-Dest", "empty")],
        [("Sec-Fetch-Mode", "no-cors"), ("Sec-Fetch-Dest", "image")],
        [("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Dest", "iframe")],
    ]

    /// A stored session at `/items/7`, and the URLs that a navigation would move it with: a page
    /// in the tree under the top, a tab, a deep link, a step link. With what a navigation answers.
    private func session(_ site: TestSite) async throws -> (TestBrowser, String, [(url: String, status: Int)]) {
        let browser = try await storedBrowser(site)
        let next = try #require(try await browser.get("/items/7").link(containing: "Next"))
        let id = try #require(browser.cookie("flowserver_session"))
        return (browser, id, [("/a", 200), ("/b", 200), ("/items/9", 200), (next, 303)])
    }

    @Test("speculative loads of pages and steps are declined with 403 and change nothing")
    func speculation() async throws {
        try await withSite { site in
            let (browser, id, urls) = try await session(site)
            let before = try #require(try site.store.load(id))
            for (url, _) in urls {
                for header in Self.speculative {
                    let answer = try await browser.get(url, headers: [header])
                    #expect(answer.status == 403, "\(url) with \(header)")
                }
            }
            #expect(try site.store.load(id) == before)
            let stranger = TestBrowser(port: site.port)
            #expect(try await stranger.get("/a", headers: [("Sec-Purpose", "prefetch")]).status == 403)
            #expect(site.store.count == 1, "a stranger's prefetch stores nothing")
        }
    }

    @Test("HEAD and loads that are no navigation answer as the navigation would, changing and renewing nothing")
    func looks() async throws {
        try await withSite { site in
            let (browser, id, urls) = try await session(site)
            site.clock.advance(seconds: 600)  // due for renewal: a navigation would renew it
            let before = try #require(try site.store.load(id))
            for (url, status) in urls {
                #expect(try await browser.send("HEAD", url).status == status, "HEAD \(url)")
                for headers in Self.notNavigations {
                    #expect(try await browser.get(url, headers: headers).status == status, "\(url) with \(headers)")
                }
            }
            #expect(try site.store.load(id) == before, "unchanged and not renewed")
            let page = try await browser.get("/a", headers: Self.notNavigations[0])
            #expect(page.text.contains("List A"), "the page the navigation would show")
        }
    }

    @Test("a GET that is a navigation, or says nothing of itself, still moves the tree")
    func navigations() async throws {
        try await withSite { site in
            let (browser, id, _) = try await session(site)
            let version = try #require(try site.store.load(id)).version
            #expect(try await browser.get("/b").status == 200)
            #expect(try site.store.load(id)?.version == version + 1)
            let navigation = [("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Dest", "document")]
            #expect(try await browser.get("/a", headers: navigation).status == 200)
            #expect(try site.store.load(id)?.version == version + 2)
        }
    }
}
