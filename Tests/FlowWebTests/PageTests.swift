import FlowTesting
import FlowWeb
import Foundation
import MicroHTTP
import Testing

@Suite("Pages, visits and deep links (Docs/CONTRACT.md §2, §4)")
struct PageTests {
    @Test("GET / starts a session: 303 to the top page, a secure-enough cookie")
    func newSession() async throws {
        try await withSite { site in
            let browser = TestBrowser(port: site.port)
            let home = try await browser.get("/")
            #expect(home.status == 303)
            #expect(home.header("Location") == "/a")
            let cookie = try #require(home.header("Set-Cookie"))
            #expect(cookie.hasPrefix("flowserver_session="))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
            let id = try #require(browser.cookie("flowserver_session"))
            #expect(
                id.count == 72 && id.allSatisfy(\.isHexDigit),
                "16 random bytes, the minting second, 16 bytes of signature")
            let page = try await browser.get("/a")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Cache-Control") == "no-store")
            #expect(page.text.contains("<h1>List a</h1>"))
            #expect(page.text.contains("class=\"tab selected\" href=\"/a\">List A</a>"))
            #expect(page.text.contains("href=\"/b\">List B</a>"))
            #expect(page.header("Set-Cookie") == nil)
            #expect(site.store.count == 0, "a session that only looked is not stored")
            let head = try await browser.send("HEAD", "/a")
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") != nil)
        }
    }

    @Test("a forged, unknown or expired session id is never adopted")
    func neverAdopted() async throws {
        try await withSite(sessionTTL: 60) { site in
            let browser = TestBrowser(port: site.port)
            browser.setCookie("flowserver_session", String(repeating: "ab", count: 24))
            _ = try await browser.get("/")
            let issued = try #require(browser.cookie("flowserver_session"))
            #expect(issued != String(repeating: "ab", count: 24))
            browser.setCookie("flowserver_session", "../../etc/passwd")
            _ = try await browser.get("/")
            #expect(browser.cookie("flowserver_session") != "../../etc/passwd")
            let current = try #require(browser.cookie("flowserver_session"))
            site.clock.advance(seconds: 61)
            let after = try await browser.get("/a")
            #expect(after.header("Set-Cookie") != nil)
            #expect(browser.cookie("flowserver_session") != current)
        }
    }

    @Test("reading pages keeps a stored session alive: only a session unused for its whole lifetime expires")
    func readingIsUse() async throws {
        try await withSite(sessionTTL: 60) { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let top = try #require(try await browser.get("/").header("Location"))
            for _ in 0..<3 {  // 150 s in all, never 60 s without a request
                site.clock.advance(seconds: 50)
                let page = try await browser.get(top)
                #expect(page.status == 200 && page.header("Set-Cookie") == nil)
            }
            #expect(browser.cookie("flowserver_session") == id)
            site.clock.advance(seconds: 61)
            _ = try await browser.get(top)
            #expect(browser.cookie("flowserver_session") != id)
        }
    }

    @Test("steps renew the expiry as reads do, at most once per renewal interval (a tenth of the lifetime here)")
    func stepsRenewWhenDue() async throws {
        try await withSite(sessionTTL: 60) { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let started = try #require(try site.store.load(id))
            site.clock.advance(seconds: 2)
            try await browser.follow("Item 7", on: "/a")
            let early = try #require(try site.store.load(id))
            #expect(early.version > started.version)
            #expect(
                early.expiresAt == started.expiresAt && early.lastUsedAt == started.lastUsedAt, "renewed 2 s ago: kept")
            site.clock.advance(seconds: 5)
            _ = try await browser.get("/a")
            let due = try #require(try site.store.load(id))
            #expect(due.version > early.version)
            #expect(
                due.lastUsedAt == site.clock.now && due.expiresAt == site.clock.now + 60_000,
                "7 s since the last renewal: renewed")
        }
    }

    @Test(
        "the current page is answered without waiting, as respond(to:) answers it; anything else is left to respond(to:)"
    )
    func immediatePages() async throws {
        try await withSite(sessionTTL: 600) { site in
            let browser = try await startedBrowser(site)
            let list = try await browser.get("/a")
            let step = try await browser.get(try #require(list.link(containing: "Item 7")))
            let top = try #require(step.header("Location"))
            let cookie = "flowserver_session=\(try #require(browser.cookie("flowserver_session")))"
            func request(_ target: String, _ method: HTTPMethod = .get, cookie: String? = cookie) throws -> Request {
                try Request(method: method, target: target, headers: cookie.map { ["Cookie": $0] } ?? [:])
            }
            /// A body with its per-render ids (16 hex digits) masked.
            func masked(_ body: [UInt8]) -> String {
                String(decoding: body, as: UTF8.self).replacing(/[0-9a-f]{16}/, with: "…")
            }

            let immediate = try #require(site.responder.immediateResponse(to: try request(top)))
            let awaited = await site.responder.respond(to: try request(top))
            #expect(immediate.status == .ok && awaited.status == .ok)
            #expect(masked(immediate.body) == masked(awaited.body))
            #expect(masked(immediate.body).contains("Item 7"))
            #expect(immediate.headers["Content-Type"] == awaited.headers["Content-Type"])
            let noticed = site.responder.immediateResponse(to: try request(top + "?_notice=stale"))
            #expect(noticed.map { masked($0.body).contains("no longer current") } == true)

            #expect(
                site.responder.immediateResponse(to: try request(top, cookie: nil)) == nil, "no session: one is created"
            )
            #expect(site.responder.immediateResponse(to: try request("/a")) == nil, "a page below the top: a visit")
            #expect(site.responder.immediateResponse(to: try request("/")) == nil, "a redirect to the top")
            #expect(site.responder.immediateResponse(to: try request("/nowhere")) == nil)
            #expect(site.responder.immediateResponse(to: try request(top, .post)) == nil)
            #expect(site.responder.immediateResponse(to: try request("/api/v1/session")) == nil)
            site.clock.advance(seconds: 60)  // due for renewal (every 60 s), which commits
            #expect(site.responder.immediateResponse(to: try request(top)) == nil)
            #expect(await site.responder.respond(to: try request(top)).status == .ok)
            #expect(site.responder.immediateResponse(to: try request(top)) != nil)
        }
    }

    @Test("a link step pushes a page with a Back link; Back (a visit) pops it and records a visit")
    func linkAndBack() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let list = try await browser.get("/a")
            let link = try #require(list.link(containing: "Item 7"))
            #expect(link.hasPrefix("/_step/itemIsPicked?id=7&_from="))
            let step = try await browser.get(link)
            #expect(step.status == 303 && step.header("Location") == "/items/7")
            let item = try await browser.get("/items/7")
            #expect(item.text.contains("<h1>Item 7</h1>"))
            #expect(item.text.contains("<a class=\"back\" href=\"/a\">Back</a>"))
            let back = try await browser.get("/a")
            #expect(back.status == 200 && back.text.contains("<h1>List a</h1>"))
            let history = try await API(browser: browser).history()
            #expect(history.map(\.source) == ["start", "link", "visit"])
            #expect(history.last?.actions == ["pop item"])
        }
    }

    @Test("a step from a page no longer in the tree is ignored, and the top shows a notice")
    func stalePage() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            try await browser.follow("Item 7", on: "/a")
            let item = try await browser.get("/items/7")
            let next = try #require(item.link(containing: "class=\"next\""))
            _ = try await browser.get("/a")  // Back: item 7 leaves the tree
            let stale = try await browser.get(next)
            #expect(stale.status == 303 && stale.header("Location") == "/a?_notice=stale")
            let shown = try await browser.get("/a?_notice=stale")
            #expect(shown.text.contains("class=\"notice\">That action came from a page that is no longer current"))
            #expect(try await API(browser: browser).history().last?.outcome == "ignored")
        }
    }

    @Test("a hidden page's step unwinds to it first (a second browser tab)")
    func hiddenPageUnwinds() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let listA = try await browser.get("/a")
            let optionsLink = try #require(listA.link(containing: ">Options<"))
            _ = try await browser.get(try #require(listA.link(containing: "Item 7")))
            // The old rendering of /a (now hidden under item 7) sends a step: /a is unwound to first.
            let step = try await browser.get(optionsLink)
            #expect(step.status == 303 && step.header("Location") == "/options")
            let entry = try #require(try await API(browser: browser).history().last)
            #expect(entry.actions.prefix(1) == ["pop item"])
        }
    }

    @Test("a double click on the same rendering applies the step once")
    func duplicateRender() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let link = try #require(try await browser.get("/a").link(containing: "Item 7"))
            let first = try await browser.get(link)
            let second = try await browser.get(link)
            #expect(first.header("Location") == "/items/7" && second.header("Location") == "/items/7")
            #expect(try await API(browser: browser).history().count == 2)
        }
    }

    @Test("deep links: a route navigates its step; an unknown id or path is a 404 linking to the top")
    func deepLinks() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let direct = try await browser.get("/items/42")
            #expect(direct.status == 200 && direct.text.contains("<h1>Item 42</h1>"))
            #expect(try await API(browser: browser).history().last?.source == "deeplink")
            let unknown = try await browser.get("/items/999")
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("href=\"/items/42\""))
            let nowhere = try await browser.get("/no/such/page")
            #expect(nowhere.status == 404 && nowhere.text.contains("There is no page at /no/such/page."))
            #expect(try await API(browser: browser).history().count == 2)
            #expect(try await browser.send("POST", "/a").status == 405)
        }
    }

    @Test("a presented flow shows as a modal over the page below, with a Close link to it")
    func modal() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            try await browser.follow(">Options<", on: "/a")
            let options = try await browser.get("/options")
            #expect(
                options.text.contains("<div class=\"modal\"><a class=\"close\" href=\"/a\">Close</a><h1>Options</h1>"))
            #expect(options.text.contains("<main><h1>List a</h1>"))
            let detail = try await browser.get(try #require(options.link(containing: "class=\"login\"")))
            #expect(detail.header("Location") == "/options/login")
            let shown = try await browser.get("/options/login")
            #expect(
                shown.text.contains(
                    "<a class=\"close\" href=\"/a\">Close</a><a class=\"back\" href=\"/options\">Back</a><h2>Option login</h2>"
                ))
            let closed = try await browser.get("/a")
            #expect(closed.status == 200 && !closed.text.contains("class=\"modal\""))
            #expect(try await API(browser: browser).history().last?.actions == ["dismiss options", "endFlow options"])
        }
    }

    @Test("visiting another tab's page selects that tab")
    func tabs() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let b = try await browser.get("/b")
            #expect(b.text.contains("class=\"tab selected\" href=\"/b\">List B</a>"))
            #expect(try await API(browser: browser).history().last?.actions == ["select list"])
            // Shown again, the page keeps its chrome for this version; a visit that selects
            // the other tab makes a new version, whose chrome is made anew.
            for _ in 0..<3 {
                #expect(try await browser.get("/b").text.contains("class=\"tab selected\" href=\"/b\">List B</a>"))
            }
            for _ in 0..<3 {
                let a = try await browser.get("/a")
                #expect(a.text.contains("class=\"tab selected\" href=\"/a\">List A</a>"))
                #expect(a.text.contains("class=\"tab\" href=\"/b\">List B</a>"))
            }
        }
    }
}

@Suite("Session expiry")
struct ExpiryTests {
    @Test("idle sessions expire and are purged from the store; live ones stay")
    func purge() async throws {
        try await withSite(sessionTTL: 60) { site in
            let old = try await storedBrowser(site)
            site.clock.advance(seconds: 45)
            let recent = try await storedBrowser(site)
            site.clock.advance(seconds: 30)  // old: 75 s idle, recent: 30 s
            #expect(site.store.count == 2)
            let purger = SessionPurger(store: site.store, batchSize: 1, clock: { site.clock.now })
            #expect(try await purger.purgeOnce() == 1)
            #expect(site.store.count == 1)
            #expect(try site.store.load(try #require(recent.cookie("flowserver_session"))) != nil)
            #expect(
                try site.store.load(try #require(old.cookie("flowserver_session"))) == nil, "the idle one is purged")
        }
    }
}

@Suite("Health and metrics (Docs/CONTRACT.md §6)")
struct ObservabilityTests {
    @Test("/healthz answers 200; /metrics shows requests, latency, navigations and live sessions")
    func metrics() async throws {
        try await withSite { site in
            let browser = TestBrowser(port: site.port)
            #expect(try await browser.get("/healthz").status == 200)
            _ = try await browser.get("/")
            try await browser.follow("Item 7", on: "/a")
            _ = try await browser.get("/_inspector/graph")
            _ = try await browser.get("/api/v2/nothing")
            let metrics = try await browser.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            let text = metrics.text
            #expect(text.contains(#"flowserver_http_requests_total{route="page",status="200"} 1"#), "\(text)")
            #expect(text.contains(#"flowserver_http_requests_total{route="step",status="303"} 1"#))
            #expect(text.contains("flowserver_http_request_duration_seconds_bucket{route=\"page\""))
            // Each counted under the label its route was registered with.
            #expect(text.contains(#"flowserver_http_requests_total{route="inspector",status="#))
            #expect(text.contains(#"flowserver_http_requests_total{route="api",status="404"} 1"#))
            #expect(text.contains(#"flowserver_http_requests_total{route="healthz",status="200"} 1"#))
            #expect(text.contains(#"flowserver_navigations_total{outcome="navigated"} 1"#))
            #expect(text.contains("flowserver_sessions_live 1"))
        }
    }
}

@Suite("Cookies, methods and static files (Docs/CONTRACT.md §2, §4, §6)")
struct SiteTests {
    @Test("the session cookie carries Secure when configured")
    func secureCookie() async throws {
        let site = try await TestSite.start(secureCookies: true)
        let response = try await TestBrowser(port: site.port).get("/")
        await site.server.stop()
        #expect(response.header("Set-Cookie")?.contains("; Secure") == true)
    }

    @Test("an unknown method on a page gets 405 with Allow; /public serves files with ETag/304")
    func methodsAndFiles() async throws {
        try await withSite { site in
            let browser = TestBrowser(port: site.port)
            let wrong = try await browser.send("BREW", "/a")
            #expect(wrong.status == 405 && wrong.header("Allow") == "GET, HEAD")
            let css = try await browser.get("/public/site.css")
            #expect(css.status == 200 && css.header("Content-Type") == "text/css; charset=utf-8")
            let cached = try await browser.get(
                "/public/site.css", headers: [("If-None-Match", try #require(css.header("ETag")))])
            #expect(cached.status == 304)
            #expect(try await browser.get("/public/../Package.swift").status == 404)
            _ = try await browser.get("/")
            let history = try await API(browser: browser).call("GET", "/api/v1/session/history?after=99")
            #expect(history.status == 404, "after the last entry: there is no such entry")
        }
    }
}

@Suite("Inspector")
struct InspectorTests {
    @Test("/_inspector draws the tree and the history of what was clicked")
    func inspector() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            try await browser.follow("Item 7", on: "/a")
            let page = try await browser.get("/_inspector")
            #expect(page.status == 200)
            #expect(
                page.text.contains("<strong>tabs</strong> <span class=\"kind\">flow #2 · tabs · tab 1 selected</span>"))
            #expect(page.text.contains("class=\"box page top\"><strong>item</strong>"))
            #expect(
                page.text.contains(
                    "<td><a href=\"/_inspector/history/2\">2</a></td><td>link</td><td>itemIsPicked?id=7</td><td>navigated</td><td>push item#"
                ))
            #expect(page.text.contains("href=\"/api/v1/session/history\""))
        }
    }

    @Test("a step no flow navigates, from a current page, shows no stale notice")
    func unhandledStepIsNotStale() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let list = try await browser.get("/a")
            let from = try #require(list.hidden("_from"))
            let response = try await browser.get("/_step/optionsAreDone?_from=\(from)")
            #expect(response.header("Location") == "/a")
        }
    }
}
