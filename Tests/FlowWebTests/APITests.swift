import FlowCore
import FlowStore
import FlowTesting
import Foundation
import Testing

@testable import FlowWeb

@Suite("JSON API (Docs/CONTRACT.md §5)")
struct APITests {
    /// A new API session and a client that uses its bearer token.
    private func apiSession(_ site: TestSite) async throws -> (API, [String: Any]) {
        let anonymous = API(browser: TestBrowser(port: site.port))
        let created = try await anonymous.call("POST", "/api/v1/sessions")
        #expect(created.status == 201)
        #expect(created.header("Content-Type") == "application/json")
        let body = try anonymous.object(created)
        let id = try #require(body["session"] as? String)
        return (API(browser: TestBrowser(port: site.port), bearer: id), body)
    }

    @Test("POST /sessions answers the session and its State, shaped as the contract says")
    func create() async throws {
        try await withSite { site in
            let (api, body) = try await apiSession(site)
            let state = try #require(body["state"] as? [String: Any])
            #expect(state["session"] as? String == api.bearer)
            #expect(state["version"] as? Int == 1)
            let top = try #require(state["top"] as? [String: Any])
            #expect(
                top["url"] as? String == "/a" && top["page"] as? String == "list" && top["flow"] as? String == "list")
            let root = try #require(state["root"] as? [String: Any])
            #expect(root["flow"] as? String == "root" && root["container"] as? String == "single")
            #expect(root["presented"] is NSNull)
            let tabs = try #require((root["children"] as? [[String: Any]])?.first)
            #expect(tabs["container"] as? String == "tabs" && tabs["selected"] as? Int == 0)
            let firstTab = try #require((tabs["children"] as? [[String: Any]])?.first)
            let page = try #require((firstTab["children"] as? [[String: Any]])?.first)
            #expect(Set(page.keys) == ["node", "page", "url"])
        }
    }

    @Test("steps and visits through the API answer the entry and the new State")
    func stepsAndVisits() async throws {
        try await withSite { site in
            let (api, _) = try await apiSession(site)
            let stepped = try await api.call(
                "POST", "/api/v1/session/steps", json: #"{"step":{"name":"itemIsPicked","params":{"id":3}}}"#)
            #expect(stepped.status == 200)
            let answer = try api.object(stepped)
            let entry = try #require(answer["entry"] as? [String: Any])
            #expect(entry["source"] as? String == "api" && entry["outcome"] as? String == "navigated")
            #expect((entry["step"] as? [String: Any])?["name"] as? String == "itemIsPicked")
            #expect(entry["adaptedStep"] is NSNull && entry["url"] is NSNull)
            #expect((entry["from"] as? Int) != nil)
            #expect((entry["at"] as? String)?.hasSuffix("Z") == true)
            #expect(((answer["state"] as? [String: Any])?["top"] as? [String: Any])?["url"] as? String == "/items/3")
            let visited = try await api.call("POST", "/api/v1/session/visits", json: #"{"url":"/b"}"#)
            #expect(visited.status == 200)
            #expect(
                ((try api.object(visited)["state"] as? [String: Any])?["top"] as? [String: Any])?["url"] as? String
                    == "/b")
            #expect(try await api.call("POST", "/api/v1/session/visits", json: #"{"url":"/nowhere"}"#).status == 404)
            let state = try api.object(try await api.call("GET", "/api/v1/session"))
            #expect(state["version"] as? Int == 3)
        }
    }

    @Test(
        "a step param takes its JSON type or the text a form would send; text that spells nothing answers 400 naming the param"
    )
    func paramsAsText() async throws {
        try await withSite { site in
            let (api, _) = try await apiSession(site)
            let asText = try await api.call(
                "POST", "/api/v1/session/steps", json: #"{"step":{"name":"itemIsPicked","params":{"id":"3"}}}"#)
            #expect(asText.status == 200)
            #expect(
                ((try api.object(asText)["state"] as? [String: Any])?["top"] as? [String: Any])?["url"] as? String
                    == "/items/3")
            let refused = try await api.call(
                "POST", "/api/v1/session/steps", json: #"{"step":{"name":"itemIsPicked","params":{"id":"three"}}}"#)
            #expect(refused.status == 400)
            #expect(
                (try api.object(refused)["detail"] as? String)?.contains(#"field "id": expected an integer"#) == true)
            // `params` may be left out; the step then lacks its param, which the answer names.
            let bare = try await api.call("POST", "/api/v1/session/steps", json: #"{"step":{"name":"itemIsPicked"}}"#)
            #expect(bare.status == 400)
            #expect((try api.object(bare)["detail"] as? String)?.contains(#"field "id": missing"#) == true)
        }
    }

    @Test("history pages with after/limit; seq and version only grow")
    func history() async throws {
        try await withSite { site in
            let (api, _) = try await apiSession(site)
            for id in 1...5 {
                _ = try await api.call(
                    "POST", "/api/v1/session/steps", json: #"{"step":{"name":"itemIsPicked","params":{"id":\#(id)}}}"#)
            }
            let first = try api.object(try await api.call("GET", "/api/v1/session/history?limit=2"))
            let entries = try #require(first["entries"] as? [[String: Any]])
            #expect(entries.map { $0["seq"] as? Int } == [1, 2])
            #expect(first["next"] as? Int == 2)
            let rest = try api.object(try await api.call("GET", "/api/v1/session/history?after=2&limit=500"))
            #expect((rest["entries"] as? [[String: Any]])?.map { $0["seq"] as? Int } == [3, 4, 5, 6])
            #expect(rest["next"] is NSNull)
            let all = try await api.history()
            #expect(all.map(\.seq) == [1, 2, 3, 4, 5, 6])
            #expect(all.map(\.version) == [1, 2, 3, 4, 5, 6])
            #expect(all.first?.source == "start")
        }
    }

    @Test(
        "bad input answers problem+json and changes nothing",
        arguments: [
            ("GET", "/api/v1/session/history?limit=0", nil as String?, 400),
            ("GET", "/api/v1/session/history?limit=501", nil, 400),
            ("GET", "/api/v1/session/history?after=-1", nil, 400),
            ("GET", "/api/v1/session/history?after=x", nil, 400),
            ("POST", "/api/v1/session/steps", #"{"step":{"name":"fly"}}"#, 400),
            ("POST", "/api/v1/session/steps", #"{"step":{"name":"itemIsPicked","params":{"id":"seven"}}}"#, 400),
            ("POST", "/api/v1/session/steps", #"{"step":"#, 400),
            ("POST", "/api/v1/session/steps", #"{"nostep":1}"#, 400),
            ("POST", "/api/v1/session/steps", #"{"step":{"name":"itemIsPicked","params":{"id":3}},"from":null}"#, 400),
            ("POST", "/api/v1/session/steps", #"{"step":{"name":"helpIsRequired","params":null}}"#, 400),
            ("POST", "/api/v1/session/steps", #"{"step":{"name":"itemIsPicked","params":{"id":"3.5"}}}"#, 400),
            ("POST", "/api/v1/session/visits", #"{"url":""}"#, 400),
            ("POST", "/api/v1/session/visits", #"{"url":"items/3"}"#, 400),
            ("POST", "/api/v1/session/visits", #"{"url":"/bad\u0000path"}"#, 404),
            ("GET", "/api/v1/session/history?after=2", nil, 404),
            ("GET", "/api/v1/session/history?after=103816010943699561218048", nil, 404),
            ("PUT", "/api/v1/session", nil, 405),
            ("GET", "/api/v1/nothing", nil, 404),
            ("GET", "/api/v1/sessions", nil, 405),
            ("DELETE", "/api/v1/session/steps", nil, 405),
            ("POST", "/api/v2/session", nil, 404),
        ])
    func badInput(method: String, path: String, json: String?, status: Int) async throws {
        try await withSite { site in
            let (api, _) = try await apiSession(site)
            let response = try await api.call(method, path, json: json)
            #expect(response.status == status)
            #expect(response.header("Content-Type") == "application/problem+json")
            let problem = try api.object(response)
            #expect(
                problem["status"] as? Int == status && problem["title"] is String && problem["detail"] is String
                    && problem["type"] is String)
            #expect(try await api.history().count == 1)
        }
    }

    @Test("authentication: bearer or cookie; a cookie change needs X-CSRF-Token; a wrong content type is 415")
    func authentication() async throws {
        try await withSite { site in
            let nobody = API(browser: TestBrowser(port: site.port))
            #expect(try await nobody.call("GET", "/api/v1/session").status == 401)
            #expect(
                try await API(browser: TestBrowser(port: site.port), bearer: String(repeating: "0", count: 48)).call(
                    "GET", "/api/v1/session"
                ).status == 401)
            let browser = TestBrowser(port: site.port)
            let page = try await browser.get("/")
            _ = page
            let cookie = API(browser: browser)
            #expect(try await cookie.call("GET", "/api/v1/session").status == 200)
            let step = #"{"step":{"name":"itemIsPicked","params":{"id":1}}}"#
            #expect(try await cookie.call("POST", "/api/v1/session/steps", json: step).status == 403)
            let csrf = try #require(try await browser.get("/a").hidden("_csrf"))
            #expect(
                try await cookie.call("POST", "/api/v1/session/steps", json: step, headers: [("X-CSRF-Token", csrf)])
                    .status == 200)
            let (api, _) = try await apiSession(site)
            #expect(
                try await api.call("POST", "/api/v1/session/steps", headers: [("Content-Type", "text/plain")]).status
                    == 415)
        }
    }

    @Test("DELETE ends the session")
    func delete() async throws {
        try await withSite { site in
            let (api, _) = try await apiSession(site)
            #expect(try await api.call("DELETE", "/api/v1/session").status == 204)
            #expect(try await api.call("GET", "/api/v1/session").status == 401)
            #expect(site.store.count == 0)
        }
    }

    @Test("64 concurrent steps on one session: all applied once, one at a time")
    func concurrentSteps() async throws {
        try await withSite { site in
            let (api, _) = try await apiSession(site)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 1...64 {
                    group.addTask {
                        try await api.call(
                            "POST", "/api/v1/session/steps",
                            json: #"{"step":{"name":"itemIsPicked","params":{"id":\#(id)}}}"#
                        ).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            let history = try await api.history()
            #expect(history.count == 65)
            #expect(history.map(\.seq) == Array(1...65))
            #expect(history.map(\.version) == Array(1...65))
            let state = try api.object(try await api.call("GET", "/api/v1/session"))
            #expect(state["version"] as? Int == 65)
            let bearer = try #require(api.bearer)
            let record = try #require(try site.store.load(bearer))
            let tree = try NavigationTree(json: record.tree, registry: site.app.flows.registry)
            let pushed = tree.pages.filter { $0.page.name == "item" }.compactMap { $0.page.as(ItemPage.self)?.id }
            #expect(Set(pushed) == Set(1...64) && pushed.count == 64)
        }
    }

    @Test("the stored history, replayed from its first entry, rebuilds the session's tree")
    func replay() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            try await browser.follow("Item 7", on: "/a")
            try await browser.follow("class=\"next\"", on: "/items/7")
            _ = try await browser.get("/b")
            try await browser.follow(">Options<", on: "/b")
            _ = try await browser.get("/a")
            let id = try #require(browser.cookie("flowserver_session"))
            let records = try site.store.history(id, after: 0, limit: 500)
            let navigations = try records.map { try StoredEntry<WebStep>($0).navigation }
            let coordinator = Coordinator(app: site.app.flows)
            let rebuilt = try await coordinator.replay(navigations)
            let record = try #require(try site.store.load(id))
            #expect(
                rebuilt
                    == (try NavigationTree(
                        json: record.tree, appData: record.appData, registry: site.app.flows.registry)))
            #expect(navigations.count == 6)
        }
    }

    /// The first stored form of history entries.
    private struct FirstStoredEntry: Encodable {
        var entry: HistoryEntry
        var navigation: Navigation<WebStep>
    }

    /// The second stored form: the entry's fields beside the navigation, in the API's JSON form.
    private struct SecondStoredEntry: Encodable {
        var seq: Int
        var at: String
        var source: HistoryEntry.Source
        var url: String?
        var version: Int
        var navigation: Navigation<WebStep>
    }

    @Test("history entries stored in the forms of earlier versions are still read, unchanged", arguments: [1, 2])
    func legacyEntries(form: Int) async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            try await browser.follow("Item 7", on: "/a")
            let api = API(browser: browser)
            let before = try await api.call("GET", "/api/v1/session/history").text
            let id = try #require(browser.cookie("flowserver_session"))
            let record = try #require(try site.store.load(id))
            let legacy = try site.store.history(id, after: 0, limit: 500).map { stored in
                let current = try StoredEntry<WebStep>(stored)
                let entry = current.entry(sessionCreatedAt: record.createdAt)
                let bytes =
                    form == 1
                    ? try CompactJSONEncoder().encode(FirstStoredEntry(entry: entry, navigation: current.navigation))
                    : try CompactJSONEncoder().encode(
                        SecondStoredEntry(
                            seq: entry.seq, at: entry.at, source: entry.source, url: entry.url, version: entry.version,
                            navigation: current.navigation))
                #expect(bytes.count > stored.entry.count)
                return HistoryRecord(seq: stored.seq, entry: bytes)
            }
            try site.store.delete(id)
            try site.store.create(record, entries: legacy)
            #expect(try await api.call("GET", "/api/v1/session/history").text == before)
        }
    }

    @Test("sessions share one stored copy of their start entry (the app's initial state is computed once)")
    func sharedStartEntry() async throws {
        try await withSite { site in
            let first = try await storedBrowser(site)
            let second = try await storedBrowser(site)
            var starts: [HistoryRecord] = []
            for browser in [first, second] {
                let id = try #require(browser.cookie("flowserver_session"))
                starts += try site.store.history(id, after: 0, limit: 1)
            }
            #expect(starts.count == 2)
            #expect(starts[0] == starts[1])
            let addresses = starts.map { $0.entry.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
            #expect(addresses[0] == addresses[1])
            // The shared entry still shows each session's own creation time.
            for browser in [first, second] {
                let history = try await API(browser: browser).call("GET", "/api/v1/session/history").text
                let id = try #require(browser.cookie("flowserver_session"))
                let created = try #require(try site.store.load(id)).createdAt
                #expect(history.contains(#""at":"\#(StoredEntry<WebStep>.timestamp(created))""#))
            }
        }
    }
}

@Suite("OpenAPI document")
struct OpenAPITests {
    @Test("The OpenAPI document describes every API call the responder answers")
    func describesEveryCall() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Sources/FlowWeb/Defaults/Public/openapi.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        for path in ["/sessions:", "/session:", "/session/history:", "/session/steps:", "/session/visits:"] {
            #expect(text.contains("\n  \(path)\n"), "\(path) is not described")
        }
        for schema in ["State:", "FlowNode:", "PageNode:", "Entry:", "Action:", "Step:"] {
            #expect(text.contains("    \(schema)\n"))
        }
    }
}
