import FlowStore
import FlowTesting
import Foundation
import Testing

@testable import FlowWeb

/// Sessions stored by an earlier build that this one cannot read: set aside and started again,
/// never answered with a 5xx (issue "Sessions survive a deploy", point 1).
@Suite("Sessions the app can no longer read")
struct SessionRestartTests {
    /// A stored session (its top `/greeting/Ann` after Item 7, one greeting in its app data), then
    /// rewritten by `change` as a later build of the app would find it; its id and the version it
    /// was rewritten at.
    private func unreadableSession(
        _ site: TestSite, _ change: (inout SessionRecord) -> Void
    ) async throws -> (browser: TestBrowser, id: String, version: Int) {
        let browser = try await storedBrowser(site)
        let id = try #require(browser.cookie("flowserver_session"))
        let greeted = try await API(browser: TestBrowser(port: site.port), bearer: id).call(
            "POST", "/api/v1/session/steps", json: #"{"step":{"name":"greet","params":{"name":"Ann","times":2}}}"#)
        #expect(greeted.status == 200)
        let stored = try #require(try site.store.load(id))
        var rewritten = stored
        change(&rewritten)
        rewritten.version += 1
        try site.store.commit(rewritten, expectedVersion: stored.version, entries: [])
        return (browser, id, rewritten.version)
    }

    private static func renamingPage(_ record: inout SessionRecord) {
        record.tree = Array(
            String(decoding: record.tree, as: UTF8.self).replacing(#""page":"item""#, with: #""page":"film""#).utf8)
    }

    @Test("a renamed page: the visitor goes on from the start with a notice, app data kept, the old session set aside")
    func renamedPage() async throws {
        try await withSite { site in
            let (browser, id, version) = try await unreadableSession(site, Self.renamingPage)
            let history = try await site.store.history(id, after: 0, limit: 100)
            let home = try await browser.get("/")
            #expect(home.status == 303)
            #expect(home.header("Location") == "/a")
            let page = try await browser.get("/a")
            #expect(page.status == 200)
            #expect(page.text.contains(LoadedSession.restartNotice))
            #expect(try await browser.get("/a").text.contains(LoadedSession.restartNotice), "a reload says it again")

            let api = API(browser: TestBrowser(port: site.port), bearer: id)
            let state = try api.object(try await api.call("GET", "/api/v1/session"))
            #expect(state["version"] as? Int == version + 1)
            let entries =
                try api.object(try await api.call("GET", "/api/v1/session/history"))["entries"] as? [[String: Any]]
            #expect(entries?.count == 1, "the history starts again at the restart")
            let restart = try #require(entries?.first)
            #expect(restart["source"] as? String == "restart")
            #expect(restart["seq"] as? Int == history.last.map { $0.seq + 1 })
            #expect((restart["reason"] as? String)?.contains(#"unknown page "film""#) == true)
            let past = try await api.call("GET", "/api/v1/session/history/\(restart["seq"] as? Int ?? 0)/state")
            #expect(past.status == 200, "the restart entry rebuilds the state")

            let record = try #require(try site.store.load(id))
            #expect(String(decoding: record.appData, as: UTF8.self).contains(#""greetings":1"#), "app data kept")
            let copies = try site.store.quarantined(id)
            #expect(copies.count == 1)
            #expect(copies.first?.record.version == version)
            #expect(copies.first?.cause == "unknown-page")
            #expect(copies.first?.history == history, "the old history goes with it")
            #expect(metrics(site).contains(#"flowserver_session_restarts_total{cause="unknown-page"} 1"#))

            _ = try await browser.follow("Item 7", on: "/a")
            #expect(try await browser.get("/items/7").text.contains(LoadedSession.restartNotice) == false)
        }
    }

    @Test("a link from a page shown before the restart finds its page gone: stale, never applied to another page")
    func linkFromBefore() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)
            let next = try #require(try await browser.get("/items/7").link(containing: "Next"))
            let id = try #require(browser.cookie("flowserver_session"))
            let stored = try #require(try site.store.load(id))
            var broken = stored
            Self.renamingPage(&broken)
            broken.version += 1
            try site.store.commit(broken, expectedVersion: stored.version, entries: [])
            let followed = try await browser.get(next)
            #expect(followed.status == 303)
            #expect(followed.location?.hasSuffix("?_notice=stale") == true, "\(followed.location ?? "none")")
            let top = try await browser.get(try #require(followed.location))
            #expect(top.status == 200)
            #expect(!top.text.contains("Item 8"))
        }
    }

    @Test(
        "every URL answers the first request that finds an unreadable session without a 5xx",
        arguments: ["/", "/items/7", "/a", "/b", "/_inspector", "/_inspector/graph", "/api/v1/session", "/_events"])
    func everyURL(_ url: String) async throws {
        try await withSite { site in
            let (browser, id, version) = try await unreadableSession(site, Self.renamingPage)
            let response =
                url.hasPrefix("/api/")
                ? try await browser.get(url, headers: [("Authorization", "Bearer \(id)")])
                : url == "/_events" ? try await browser.send("HEAD", url) : try await browser.get(url)
            #expect(response.status < 500, "\(url): \(response.status) \(response.text.prefix(200))")
            // A deep link or a tab's visit moves the restarted session on.
            let first = try #require(try site.store.history(id, after: 0, limit: 1).first)
            #expect(String(decoding: first.entry, as: UTF8.self).contains(#""restart""#), "the history starts again")
            #expect(try #require(try site.store.load(id)).version > version)
            #expect(try site.store.quarantined(id).count == 1)
        }
    }

    /// `record` changed the way that makes it unreadable for `cause`.
    private static func breaking(_ record: inout SessionRecord, for cause: String) {
        let tree = String(decoding: record.tree, as: UTF8.self)
        switch cause {
        case "unknown-flow": record.tree = Array(tree.replacing(#""flow":"list""#, with: #""flow":"seen""#).utf8)
        case "state": record.tree = Array(tree.replacing(#""kind":"#, with: #""sort":"#).utf8)
        case "app-data": record.appData = Array(#"{"greetings":"many"}"#.utf8)
        case "tree": record.tree = Array(#"{"nextNode":3}"#.utf8)
        default: record.extra = Array(#"{"submissions":7}"#.utf8)
        }
    }

    private func metrics(_ site: TestSite) -> String { String(decoding: site.responder.metrics.text, as: UTF8.self) }

    @Test(
        "each kind of change is set aside under its cause; app data that no longer decodes starts over too",
        arguments: ["unknown-flow", "state", "app-data", "tree", "bookkeeping"])
    func causes(_ cause: String) async throws {
        try await withSite { site in
            let (_, id, version) = try await unreadableSession(site) { Self.breaking(&$0, for: cause) }
            let api = API(browser: TestBrowser(port: site.port), bearer: id)
            let state = try await api.call("GET", "/api/v1/session")
            #expect(state.status == 200)
            #expect(try api.object(state)["version"] as? Int == version + 1)
            #expect(try site.store.quarantined(id).map(\.cause) == [cause])
            #expect(metrics(site).contains("flowserver_session_restarts_total{cause=\"\(cause)\"} 1"))
            let appData = String(decoding: try #require(try site.store.load(id)).appData, as: UTF8.self)
            #expect(appData.contains(#""greetings":1"#) == (cause != "app-data"))
        }
    }

    @Test("requests that find it at once restart it once")
    func concurrentRequests() async throws {
        try await withSite { site in
            let (_, id, version) = try await unreadableSession(site, Self.renamingPage)
            let port = site.port
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await API(browser: TestBrowser(port: port), bearer: id).call("GET", "/api/v1/session")
                            .status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 8))
            #expect(try site.store.load(id)?.version == version + 1)
            #expect(try site.store.quarantined(id).count == 1)
            #expect(metrics(site).contains(#"flowserver_session_restarts_total{cause="unknown-page"} 1"#))
        }
    }
}
