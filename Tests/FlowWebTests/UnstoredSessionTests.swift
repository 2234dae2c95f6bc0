import FlowStore
import FlowTesting
import Foundation
import MicroHTTP
import Testing

@testable import FlowWeb

@Suite("Sessions that cost nothing (Docs/CONTRACT.md §10)")
struct UnstoredSessionTests {
    @Test("cookie-less requests store nothing; only pages set a cookie")
    func cookielessStoresNothing() async throws {
        try await withSite { site in
            // (Not "/b": a visit to another tab changes the tree, so it is stored.)
            for path in [
                "/", "/a", "/_inspector", "/wp-login.php", "/public/missing.css", "/public/site.css", "/healthz",
                "/metrics",
            ] {
                for _ in 0..<20 { _ = try await TestBrowser(port: site.port).get(path) }
            }
            #expect(site.store.count == 0)
            let anonymous = TestBrowser(port: site.port)
            for (path, status) in [
                ("/wp-login.php", 404), ("/public/missing.css", 404), ("/public/site.css", 200), ("/healthz", 200),
                ("/metrics", 200),
                ("/api/v1/session", 401),
            ] {
                let response = try await anonymous.get(path)
                #expect(response.status == status, "\(path)")
                #expect(response.header("Set-Cookie") == nil, "\(path) sets no cookie")
            }
            let post = try await anonymous.send("POST", "/a")
            #expect(post.status == 405 && post.header("Set-Cookie") == nil)
            let page = try await anonymous.get("/a")
            #expect(page.status == 200 && page.header("Set-Cookie") != nil)
            #expect(site.store.count == 0)
        }
    }

    @Test("a first visit to / or to the first page is answered on the server's thread, as respond(to:) answers it")
    func firstVisitImmediately() async throws {
        try await withSite { site in
            _ = try await TestBrowser(port: site.port).get("/")  // the initial state is computed
            let home = try #require(site.responder.immediateResponse(to: try Request(method: .get, target: "/")))
            #expect(home.status == .seeOther && home.headers["Location"] == "/a")
            let cookie = try #require(home.headers["Set-Cookie"]).prefix { $0 != ";" }
            let page = try #require(site.responder.immediateResponse(to: try Request(method: .get, target: "/a")))
            #expect(page.status == .ok && page.headers["Set-Cookie"] != nil)
            let viaRespond = await site.responder.respond(
                to: try Request(method: .get, target: "/a", headers: ["Cookie": String(cookie)]))
            #expect(viaRespond.status == .ok)
            for target in ["/b", "/items/3", "/nowhere"] {
                #expect(
                    site.responder.immediateResponse(to: try Request(method: .get, target: target)) == nil,
                    "\(target) takes the async path")
            }
            #expect(site.store.count == 0)
        }
    }

    @Test(
        "a session is stored at its first change, its history starting with its start entry; the first page's _csrf works"
    )
    func storedAtFirstChange() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let api = API(browser: browser)
            #expect(try await api.history().map(\.source) == ["start"])
            let state = try api.object(try await api.call("GET", "/api/v1/session"))
            #expect(state["session"] as? String == id && state["version"] as? Int == 1)
            // A tab link that changes nothing (the tab is selected already) stores nothing.
            _ = try await browser.get("/a")
            #expect(site.store.count == 0)
            // A form on the first page, with its _r and _csrf: the first change.
            let list = try await browser.get("/a")
            let csrf = try #require(list.hidden("_csrf"))
            #expect(csrf == site.responder.sessions.ids.csrfToken(for: id))
            let form = try await browser.post(
                "/_step",
                form: [
                    ("_step", "itemIsPicked"), ("id", "3"), ("_from", try #require(list.hidden("_from"))),
                    ("_r", try #require(list.hidden("_r"))),
                    ("_csrf", csrf),
                ])
            #expect(form.status == 303 && form.header("Set-Cookie") == nil)
            let record = try #require(try site.store.load(id))
            #expect(record.version == 2 && record.csrfToken == csrf)
            #expect(try await api.history().map(\.source) == ["start", "form"])
            #expect(try site.store.history(id, after: 0, limit: 10).map(\.seq) == [1, 2])
        }
    }

    @Test("a forged, truncated, re-signed or unknown unsigned id is replaced; a stored unsigned id still works")
    func idsAreChecked() async throws {
        try await withSite { site in
            let other = try await TestSite.start()
            defer { Task { await other.server.stop() } }
            let foreign = try #require(try await startedBrowser(other).cookie("flowserver_session"))
            let own = try #require(try await startedBrowser(site).cookie("flowserver_session"))
            var flipped = Array(own.utf8)
            flipped[70] = flipped[70] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            let forged = [
                String(repeating: "ab", count: 36), String(own.dropLast()), String(decoding: flipped, as: UTF8.self),
                foreign,
                own.uppercased(), String(repeating: "cd", count: 24),
            ]
            for id in forged {
                let browser = TestBrowser(port: site.port)
                browser.setCookie("flowserver_session", id)
                let page = try await browser.get("/a")
                #expect(page.status == 200 && page.header("Set-Cookie") != nil, "\(id) is replaced")
                #expect(browser.cookie("flowserver_session") != id)
                let api = API(browser: TestBrowser(port: site.port), bearer: id)
                #expect(try await api.call("GET", "/api/v1/session").status == 401)
            }
            // An id from before signing names its stored session still.
            let legacy = String(repeating: "ef", count: 24)
            let template = try #require(try await storedBrowser(site).cookie("flowserver_session"))
            var record = try #require(try site.store.load(template))
            record.id = legacy
            try site.store.create(record, entries: [])
            let browser = TestBrowser(port: site.port)
            browser.setCookie("flowserver_session", legacy)
            let page = try await browser.get("/items/7")
            #expect(page.status == 200 && page.header("Set-Cookie") == nil)
        }
    }

    @Test("an id minted by one instance is accepted by another that shares the store and the secret")
    func sharedSecret() async throws {
        let store = MemorySessionStore()
        let secret = try await store.sessionSecret(proposing: SessionIDs.randomSecret())
        let first = try await TestSite.start(store: store) { $0.sessionSecret = secret }
        let second = try await TestSite.start(store: store) { $0.sessionSecret = secret }
        defer {
            Task {
                await first.server.stop()
                await second.server.stop()
            }
        }
        let browser = try await startedBrowser(first)
        let id = try #require(browser.cookie("flowserver_session"))
        let elsewhere = TestBrowser(port: second.port)
        elsewhere.setCookie("flowserver_session", id)
        let page = try await elsewhere.get("/a")
        #expect(page.status == 200 && page.header("Set-Cookie") == nil, "not stored, yet known")
        _ = try await elsewhere.follow("Item 7", on: "/a")
        #expect(
            try await API(browser: browser).history().map(\.source) == ["start", "link"],
            "stored by the second, read by the first")
    }

    @Test("a session not stored expires a lifetime after its id was minted; reading does not renew it")
    func unstoredExpiry() async throws {
        try await withSite(sessionTTL: 60) { site in
            let browser = try await startedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            site.clock.advance(seconds: 59)
            #expect(try await browser.get("/a").header("Set-Cookie") == nil)
            site.clock.advance(seconds: 2)
            #expect(try await browser.get("/a").header("Set-Cookie") != nil)
            #expect(browser.cookie("flowserver_session") != id)
            #expect(site.store.count == 0)
        }
    }

    @Test("DELETE ends a session, stored or not: its id is not taken for a new session afterwards")
    func deleted() async throws {
        try await withSite { site in
            for stored in [false, true] {
                let browser = stored ? try await storedBrowser(site) : try await startedBrowser(site)
                let id = try #require(browser.cookie("flowserver_session"))
                let api = API(browser: TestBrowser(port: site.port), bearer: id)
                #expect(try await api.call("DELETE", "/api/v1/session").status == 204)
                #expect(try await api.call("GET", "/api/v1/session").status == 401)
                #expect(try site.store.history(id, after: 0, limit: 10).isEmpty)
                let page = try await browser.get("/a")
                #expect(page.header("Set-Cookie") != nil && browser.cookie("flowserver_session") != id)
            }
            #expect(site.store.count == 0, "the markers of deleted sessions do not count")
            #expect(try await site.store.liveCount(now: site.clock.now) == 0)
        }
    }

    @Test("new stored sessions are limited per client address: 429 with Retry-After, existing sessions unaffected")
    func creationLimit() async throws {
        try await withSite(configure: {
            $0.newSessionsPerMinute = 6
            $0.newSessionBurst = 3
        }) { site in
            let existing = try await storedBrowser(site)
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await TestBrowser(port: site.port).get("/items/5").status) }
            #expect(statuses == [200, 200, 429, 429], "the existing session took one of the burst of 3")
            let refused = try await TestBrowser(port: site.port).get("/items/5")
            #expect(refused.header("Retry-After") == "10" && refused.header("Set-Cookie") == nil)
            #expect(
                refused.header("Content-Type") == "text/html; charset=utf-8"
                    && refused.text.contains("Try again in 10 s"))
            let api = try await TestBrowser(port: site.port).send("POST", "/api/v1/sessions")
            #expect(api.status == 429 && api.header("Retry-After") == "10")
            // Pages that store nothing are still served, and existing sessions still change.
            #expect(try await TestBrowser(port: site.port).get("/").status == 303)
            #expect(try await existing.follow("class=\"next\"", on: "/items/7").status == 303)
            site.clock.advance(seconds: 10)
            #expect(try await TestBrowser(port: site.port).get("/items/5").status == 200)
            #expect(site.store.count == 4)
        }
    }

    @Test("behind a trusted proxy the limit counts the forwarded address; from anyone else the header is ignored")
    func trustedProxy() async throws {
        for trusted in [true, false] {
            try await withSite(configure: {
                $0.newSessionsPerMinute = 1
                $0.newSessionBurst = 1
                if trusted { $0.trustedProxies = ["127.0.0.1"] }
            }) { site in
                var statuses: [Int] = []
                for client in ["203.0.113.1", "203.0.113.2", "203.0.113.1"] {
                    let response = try await TestBrowser(port: site.port).get(
                        "/items/5", headers: [("X-Forwarded-For", "198.51.100.9, \(client)")])
                    statuses.append(response.status)
                }
                #expect(statuses == (trusted ? [200, 200, 429] : [200, 429, 429]))
            }
        }
    }

    @Test("client addresses: the port and brackets go; only a trusted peer's forwarded address counts")
    func clientAddress() throws {
        #expect(RequestClient.host(of: "10.0.0.1:5000") == "10.0.0.1")
        #expect(RequestClient.host(of: "[::1]:5000") == "::1")
        #expect(RequestClient.host(of: "::1") == "::1")
        let request = try Request(
            method: .get, target: "/", headers: ["X-Forwarded-For": "1.1.1.1, 2.2.2.2 , 10.0.0.2"],
            remoteAddress: "10.0.0.1:4000")
        #expect(RequestClient.of(request, trustedProxies: []) == "10.0.0.1")
        #expect(RequestClient.of(request, trustedProxies: ["10.0.0.1"]) == "10.0.0.2")
        #expect(RequestClient.of(request, trustedProxies: ["10.0.0.1", "10.0.0.2"]) == "2.2.2.2")
    }
}
