import FlowCore
import FlowStore
import FlowTesting
import Foundation
import Testing

@testable import FlowWeb

@Suite("Time travel and history retention (issue 24)")
struct TimeTravelTests {
    /// A new API session.
    private func apiSession(_ site: TestSite) async throws -> API {
        let anonymous = API(browser: TestBrowser(port: site.port))
        let created = try anonymous.object(try await anonymous.call("POST", "/api/v1/sessions"))
        return API(browser: TestBrowser(port: site.port), bearer: try #require(created["session"] as? String))
    }

    /// The session's State now, as JSON.
    private func state(_ api: API) async throws -> NSDictionary {
        try api.object(try await api.call("GET", "/api/v1/session")) as NSDictionary
    }

    /// The State right after entry `seq`, or the status when there is none.
    private func past(_ api: API, _ seq: Int) async throws -> (status: Int, state: NSDictionary?) {
        let response = try await api.call("GET", "/api/v1/session/history/\(seq)/state")
        return (response.status, response.status == 200 ? try api.object(response) as NSDictionary : nil)
    }

    /// Steps of every outcome through the API: navigated, rejected, ignored, adapted, and one
    /// that changes the app data; a visit (Back) too.
    private static let steps: [String] = [
        #"{"step":{"name":"itemIsPicked","params":{"id":3}}}"#,
        #"{"step":{"name":"helpIsRequired"}}"#,
        #"{"step":{"name":"helpIsRequired"}}"#,
        #"{"step":{"name":"noop"}}"#,
        #"{"step":{"name":"itemIsPicked","params":{"id":150}}}"#,
        #"{"step":{"name":"greet","params":{"name":"Ada","times":2}}}"#,
        #"{"step":{"name":"optionsAreRequired"}}"#,
        #"{"step":{"name":"optionIsPicked","params":{"section":"sound"}}}"#,
    ]

    @Test("the State after every entry is the State the API answered then, whatever the outcome")
    func everyEntry() async throws {
        try await withSite { site in
            let api = try await apiSession(site)
            var states: [Int: NSDictionary] = [1: try await state(api)]
            var outcomes: Set<String> = []
            for (index, body) in (Self.steps + [#"{"visit":"/a"}"#]).enumerated() {
                let answer: TestResponse
                if index == Self.steps.count {
                    answer = try await api.call("POST", "/api/v1/session/visits", json: #"{"url":"/a"}"#)
                } else {
                    answer = try await api.call("POST", "/api/v1/session/steps", json: body)
                }
                #expect(answer.status == 200, "\(body): \(answer.text)")
                let entry = try #require(try api.object(answer)["entry"] as? [String: Any])
                outcomes.insert(try #require(entry["outcome"] as? String))
                states[try #require(entry["seq"] as? Int)] = try await state(api)
            }
            #expect(outcomes.isSuperset(of: ["navigated", "rejected", "ignored", "adapted"]))
            for (seq, expected) in states.sorted(by: { $0.key < $1.key }) {
                let (status, state) = try await past(api, seq)
                #expect(status == 200)
                let version = try #require(expected["version"] as? Int)
                // An entry that changed nothing (rejected, ignored) kept the version before it.
                #expect(state == expected, "entry \(seq) (version \(version))")
            }
            let last = try #require(states.keys.max())
            #expect(try await past(api, last + 1).status == 404)
            #expect(try await past(api, 0).status == 404)
            let word = try await api.call("GET", "/api/v1/session/history/first/state")
            #expect(word.status == 404 && word.header("Content-Type") == "application/problem+json")
        }
    }

    @Test("a session only looked at answers its start entry's State")
    func unstored() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let api = API(browser: browser)
            let (status, state) = try await past(api, 1)
            #expect(status == 200)
            #expect(state == (try await self.state(api)))
            #expect(try await past(api, 2).status == 404)
        }
    }

    @Test("past a bound, the oldest entries fold into a snapshot; the API, time travel and replay go on from it")
    func retention() async throws {
        try await withSite(configure: { $0.historyRetention = HistoryRetention(limit: 8) }) { site in
            let api = try await apiSession(site)
            var states: [Int: NSDictionary] = [:]
            for id in 1...40 {
                let body =
                    id.isMultiple(of: 5)
                    ? #"{"step":{"name":"greet","params":{"name":"Ada","times":1}}}"#
                    : #"{"step":{"name":"itemIsPicked","params":{"id":\#(id)}}}"#
                let answer = try await api.call("POST", "/api/v1/session/steps", json: body)
                let entry = try #require(try api.object(answer)["entry"] as? [String: Any])
                states[try #require(entry["seq"] as? Int)] = try await state(api)
            }
            let history = try await api.history()
            #expect(history.count <= 8 && history.count >= 8 - site.responder.sessions.retention.snapshotInterval)
            #expect(history.last?.seq == 41)
            let first = try #require(history.first?.seq)
            #expect(first > 1 && history.map(\.seq) == Array(first...41))
            let stored = try site.store.history(try #require(api.bearer), after: 0, limit: 100)
            #expect(stored.map(\.seq) == history.map(\.seq))
            for seq in first...41 {
                let (status, state) = try await past(api, seq)
                #expect(status == 200 && state == states[seq], "entry \(seq)")
            }
            let folded = try await api.call("GET", "/api/v1/session/history/\(first - 1)/state")
            #expect(folded.status == 404)
            #expect(folded.text.contains("no longer kept"))
            // The app data survived the folding: 8 greetings.
            let id = try #require(api.bearer)
            let record = try #require(try site.store.load(id))
            let tree = try NavigationTree(json: record.tree, appData: record.appData, registry: site.app.flows.registry)
            #expect(tree.appData.as(WebSessionData.self)?.greetings == 8)
        }
    }

    @Test("/_inspector/history/{seq} shows the entry, the tree and the page then, read-only, and what changed since")
    func inspector() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)  // entry 2: item 7 pushed
            let greeted = try await browser.post(
                "/_step", form: try await greetForm(browser, name: "Ada"))
            #expect(greeted.status == 303)
            let page = try await browser.get("/_inspector/history/2")
            #expect(page.status == 200)
            #expect(page.text.contains("Entry 2"))
            #expect(page.text.contains("href=\"/_inspector/history/1\"") && page.text.contains("/_inspector/history/3"))
            let shown = try #require(page.text.components(separatedBy: "class=\"past-page\"").last)
            let pastPage = try #require(shown.components(separatedBy: "</fieldset>").first)
            #expect(pastPage.contains("Item 7"))
            #expect(!pastPage.contains(" href=\"") && pastPage.contains("data-href=\"/_step/"))
            #expect(page.text.contains("popped item#") && page.text.contains("pushed greeting#"))
            #expect(page.text.contains("the app data changed"))
            // Entry 3: the visit to /a (popped the item); entry 4: the greeting.
            let now = try await browser.get("/_inspector/history/4")
            #expect(now.text.contains("Nothing changed since.") && now.text.contains("&quot;greetings&quot;:1"))
            #expect(try await browser.get("/_inspector/history/5").status == 404)
        }
    }

    /// The greeting form's fields on `/a`, filled in.
    private func greetForm(_ browser: TestBrowser, name: String) async throws -> [(String, String)] {
        let list = try await browser.get("/a")
        var fields = list.formFields.filter { $0.0 != "name" && $0.0 != "times" }
        fields += [("name", name), ("times", "2"), ("_step", "greet")]
        return fields
    }

    @Test("retention counts and folds at snapshot entries")
    func retentionArithmetic() {
        let retention = HistoryRetention(limit: 8)
        #expect(retention.snapshotInterval == 2)
        #expect(retention.snapshots(first: 2, last: 2) && !retention.snapshots(first: 3, last: 3))
        #expect(retention.snapshots(first: 3, last: 4) && retention.snapshots(first: 5, last: 6))
        #expect(retention.foldTarget(snapshots: [2, 4, 6, 8], lastSeq: 8) == nil)
        #expect(retention.foldTarget(snapshots: [2, 4, 6, 8, 10], lastSeq: 10) == 4)
        #expect(HistoryRetention(limit: 0).foldTarget(snapshots: [100, 200], lastSeq: 5000) == nil)
        #expect(HistoryRetention().snapshotInterval == 100)
    }
}
