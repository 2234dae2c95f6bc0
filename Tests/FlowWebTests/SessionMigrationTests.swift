import FlowCore
import FlowStore
import FlowTesting
import Foundation
import Testing

@testable import FlowWeb

/// Versioned sessions: sessions stored by version 1 of an app, read by version 2 through its
/// migrations; version 1 meeting a session version 2 wrote (issue "Sessions survive a deploy",
/// point 2, and the old instance's side of point 4).
@Suite("Session migrations")
struct SessionMigrationTests {
    /// Version 2's migrations. In version 1 the item page was "film", the list flow "seen", the
    /// step to pick an item "pickItem"; version 2 added `helpRequests` to the list flow's state
    /// and `greetings` to the app data.
    static let migrations: [SessionMigration] = [
        .renamePage("film", to: "item"),
        .renameFlow("seen", to: "list"),
        .renameStep("pickItem", to: "itemIsPicked"),
        .addField("helpRequests", value: .int(0), toFlow: "list"),
        .addAppDataField("greetings", value: .int(0)),
    ]

    /// `bytes` with each of `replacements` made.
    private static func replacing(_ bytes: [UInt8], _ replacements: [(String, String)]) -> [UInt8] {
        var text = String(decoding: bytes, as: UTF8.self)
        for (old, new) in replacements { text = text.replacing(old, with: new) }
        return Array(text.utf8)
    }

    /// What version 1 stored: the names and fields it had.
    private static let asVersionOne = [
        (#""page":"item""#, #""page":"film""#), (#""flow":"list""#, #""flow":"seen""#),
        (#","helpRequests":0"#, ""), (#""item","#, #""film","#), (#""list"]"#, #""seen"]"#),
        (#","list","#, #","seen","#), (#"{"itemIsPicked""#, #"{"pickItem""#),
    ]

    /// A session stored by version 1 (on `store`): `/items/7` with `/greeting` on top; its id.
    private func versionOneSession(_ site: TestSite) async throws -> (browser: TestBrowser, id: String) {
        let browser = try await storedBrowser(site)
        let id = try #require(browser.cookie("flowserver_session"))
        let api = API(browser: TestBrowser(port: site.port), bearer: id)
        let greeted = try await api.call(
            "POST", "/api/v1/session/steps", json: #"{"step":{"name":"greet","params":{"name":"Ann","times":2}}}"#)
        #expect(greeted.status == 200)
        // Rewritten as version 1 would have stored it, history included.
        var record = try #require(try site.store.load(id))
        let history = try site.store.history(id, after: 0, limit: 100)
        record.tree = Self.replacing(record.tree, Self.asVersionOne)
        record.appData = Array("{}".utf8)
        try site.store.delete(id)
        try site.store.create(
            record,
            entries: history.map { HistoryRecord(seq: $0.seq, entry: Self.replacing($0.entry, Self.asVersionOne)) })
        return (browser, id)
    }

    /// Runs `body` with an instance of version 1 and one of version 2 on one store, and stops them.
    private func withVersions(_ body: (TestSite, TestSite, MemorySessionStore) async throws -> Void) async throws {
        let store = MemorySessionStore()
        let one = try await TestSite.start(store: store)
        let two = try await TestSite.start(
            store: store, app: try TestSite.webApp(version: "2", migrations: Self.migrations))
        do { try await body(one, two, store) } catch {
            await one.server.stop()
            await two.server.stop()
            throw error
        }
        await one.server.stop()
        await two.server.stop()
    }

    @Test("version 2 reads version 1's sessions through its migrations: pages, history, time travel, the next commit")
    func migrated() async throws {
        try await withVersions { one, two, store in
            let (browser, id) = try await versionOneSession(one)
            let stored = try #require(try store.load(id))
            #expect(String(decoding: stored.tree, as: UTF8.self).contains(#""page":"film""#))

            let onTwo = TestBrowser(port: two.port)
            onTwo.setCookie("flowserver_session", id)
            let page = try await onTwo.get("/greeting")
            #expect(page.status == 200, "\(page.text.prefix(300))")
            #expect(!page.text.contains(LoadedSession.restartNotice))
            #expect(try store.quarantined(id).isEmpty)
            #expect(try store.load(id) == stored, "reading migrates nothing in the store")

            let api = API(browser: TestBrowser(port: two.port), bearer: id)
            let state = try api.object(try await api.call("GET", "/api/v1/session"))
            #expect(state["version"] as? Int == stored.version)
            let history = try await api.call("GET", "/api/v1/session/history")
            #expect(history.status == 200)
            #expect(history.text.contains(#""name":"itemIsPicked""#) && !history.text.contains("pickItem"))
            #expect(history.text.contains(#""page":"item""#) && !history.text.contains(#""film""#))
            for seq in 1...stored.lastSeq {
                let past = try await api.call("GET", "/api/v1/session/history/\(seq)/state")
                #expect(past.status == 200, "entry \(seq): \(past.text.prefix(300))")
            }

            // The next commit writes the migrated document, recording version 2's level and version.
            _ = try await onTwo.get("/items/7")
            let committed = try #require(try store.load(id))
            #expect(committed.version == stored.version + 1)
            let tree = String(decoding: committed.tree, as: UTF8.self)
            #expect(
                tree.contains(#""page":"item""#) && tree.contains(#""flow":"list""#) && tree.contains("helpRequests"))
            #expect(String(decoding: committed.appData, as: UTF8.self) == #"{"greetings":0}"#)
            let extra = try CompactJSONDecoder().decode(SessionExtra.self, from: committed.extra)
            #expect(extra.level == Self.migrations.count)
            #expect(extra.appVersion == "2")
            #expect(extra.levels == [[stored.version + 1, Self.migrations.count]])
            let after = try await api.call("GET", "/api/v1/session/history")
            #expect(after.status == 200 && after.text.contains(#""source":"visit""#))
            #expect(try await api.call("GET", "/api/v1/session/history/2/state").status == 200)
            #expect(
                try await browser.get("/items/7").status == 503, "version 1's instance leaves version 2's session alone"
            )
        }
    }

    @Test("version 1 meeting a session version 2 wrote answers 503 with Retry-After and leaves it as it is")
    func newerVersion() async throws {
        try await withVersions { one, two, store in
            let browser = try await storedBrowser(two)
            let id = try #require(browser.cookie("flowserver_session"))
            let stored = try #require(try store.load(id))
            let onOne = TestBrowser(port: one.port)
            onOne.setCookie("flowserver_session", id)
            for path in ["/items/7", "/", "/a"] {
                let answer = try await onOne.get(path)
                #expect(answer.status == 503, "\(path)")
                #expect(answer.header("Retry-After") != nil)
            }
            let api = try await API(browser: TestBrowser(port: one.port), bearer: id).call("GET", "/api/v1/session")
            #expect(api.status == 503)
            #expect(api.header("Content-Type") == "application/problem+json")
            #expect(try store.load(id) == stored)
            #expect(try store.quarantined(id).isEmpty)
            #expect(try await browser.get("/items/7").status == 200, "version 2 serves it")
        }
    }

    @Test("a new session records the app's level and version from its first store")
    func newSessions() async throws {
        try await withSite(app: try TestSite.webApp(version: "2", migrations: Self.migrations)) { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let record = try #require(try site.store.load(id))
            let extra = try CompactJSONDecoder().decode(SessionExtra.self, from: record.extra)
            #expect(extra.level == Self.migrations.count)
            #expect(extra.levels == [[1, Self.migrations.count]])
            #expect(extra.appVersion == "2")
        }
    }
}

/// The helpers on stored JSON, one by one.
@Suite("Session migration helpers")
struct SessionMigrationHelperTests {
    private func json(_ text: String) throws -> JSON { try JSON(parsing: Array(text.utf8)) }

    private static let tree = #"""
        {"nextNode":9,"root":{"node":1,"flow":"app","children":[{"node":2,"flow":"shelf","state":{"kind":"a"},
        "children":[{"node":3,"page":"list"},{"node":4,"page":"film","params":{"id":7}},{"node":5,"page":"cast"}],
        "presented":{"node":6,"page":"film"}}]},"dismissed":[{"node":8,"page":"film","flow":2}]}
        """#

    @Test("pages and flows renamed in trees and history; a step renamed in every place a history keeps it")
    func renames() throws {
        var tree = try json(Self.tree)
        try SessionMigration.renamePage("film", to: "movie").tree(&tree)
        try SessionMigration.renameFlow("shelf", to: "wishlist").tree(&tree)
        let text = String(decoding: tree.bytes, as: UTF8.self)
        #expect(!text.contains("film") && !text.contains("shelf"))
        #expect(text.components(separatedBy: #""page":"movie""#).count == 4)
        #expect(text.contains(#""flow":"wishlist""#))

        var navigation = try json(
            #"[["step",{"pick":{"id":7}},3],"adapted",[["push",4,"film"],["startFlow",2,null,"shelf"]],"#
                + #"[[2,"shelf",{"pick":{"id":7}},{"step":{"_0":{"pick":{"id":8}}}}]],4,"/films/7",{"pick":{"id":8}}]"#)
        try SessionMigration.renamePage("film", to: "movie").navigation(&navigation)
        try SessionMigration.renameFlow("shelf", to: "wishlist").navigation(&navigation)
        try SessionMigration.renameStep("pick", to: "movieIsPicked").navigation(&navigation)
        let renamed = String(decoding: navigation.bytes, as: UTF8.self)
        #expect(!renamed.contains(#""pick""#) && !renamed.contains(#""film""#) && !renamed.contains("shelf"))
        #expect(renamed.components(separatedBy: #"{"movieIsPicked""#).count == 5)
        #expect(renamed.contains("/films/7"), "URLs are what they were")
    }

    @Test("fields added where missing, kept where present")
    func fields() throws {
        var tree = try json(Self.tree)
        try SessionMigration.addField("kind", value: .string("b"), toFlow: "shelf").tree(&tree)
        try SessionMigration.addField("sort", value: .string("title"), toFlow: "shelf").tree(&tree)
        try SessionMigration.addField("lang", value: .string("en"), toPage: "film").tree(&tree)
        let text = String(decoding: tree.bytes, as: UTF8.self)
        #expect(text.contains(#""state":{"kind":"a","sort":"title"}"#))
        #expect(text.contains(#"{"node":4,"page":"film","params":{"id":7,"lang":"en"}}"#))
        #expect(text.contains(#"{"node":6,"page":"film","params":{"lang":"en"}}"#))
        var appData = try json(#"{"cart":[]}"#)
        try SessionMigration.addAppDataField("currency", value: .string("EUR")).appData(&appData)
        try SessionMigration.addAppDataField("cart", value: .null).appData(&appData)
        #expect(appData == (try json(#"{"cart":[],"currency":"EUR"}"#)))
    }

    @Test("a removed page is unwound: popped with what was pushed over it, dismissed when presented")
    func removedPage() throws {
        var tree = try json(Self.tree)
        try SessionMigration.removePage("film").tree(&tree)
        let text = String(decoding: tree.bytes, as: UTF8.self)
        #expect(text.contains(#""children":[{"node":3,"page":"list"}]"#))
        #expect(text.contains(#""presented":null"#))
        #expect(text.contains(#""dismissed":[]"#))
    }
}
