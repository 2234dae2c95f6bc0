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
    /// step to pick an item "pickItem", and a "retired" page could be presented over everything;
    /// version 2 added `helpRequests` to the list flow's state and `greetings` to the app data,
    /// and removed the retired page.
    static let migrations: [SessionMigration] = [
        .renamePage("film", to: "item"),
        .renameFlow("seen", to: "list"),
        .renameStep("pickItem", to: "itemIsPicked"),
        .addField("helpRequests", value: .int(0), toFlow: "list"),
        .addAppDataField("greetings", value: .int(0)),
        .removePage("retired"),
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
        (
            #""root":{"node":1,"flow":"root","#,
            #""root":{"node":1,"flow":"root","presented":{"node":90,"page":"retired"},"#
        ),
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
        record.version += 1  // a version the site that made it has not seen (and kept decoded)
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
            #expect(String(decoding: stored.tree, as: UTF8.self).contains(#""page":"retired""#))

            let onTwo = TestBrowser(port: two.port)
            onTwo.setCookie("flowserver_session", id)
            let page = try await onTwo.get("/greeting")
            #expect(page.status == 200, "\(page.text.prefix(300))")
            #expect(!page.text.contains(LoadedSession.restartNotice))
            #expect(try store.quarantined(id).isEmpty)
            #expect(try store.load(id) == stored, "reading migrates nothing in the store")
            let inspector = try await onTwo.get("/_inspector")
            #expect(inspector.text.contains("last stored by app version 1, read at migration level 6"))
            #expect(
                try await onTwo.get("/_inspector/history/2").text.contains(
                    "Written at migration level 0 (this build: 6)"))

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
            #expect(!tree.contains("retired"), "the removed page unwound")
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

    @Test("SessionCheck says what each stored session does with this build, and migrates ahead of time")
    func check() async throws {
        try await withVersions { one, two, store in
            let (_, old) = try await versionOneSession(one)
            let newer = try #require(try await storedBrowser(two).cookie("flowserver_session"))
            let now = one.clock.now
            let checkTwo = SessionCheck(app: try TestSite.webApp(version: "2", migrations: Self.migrations))
            let checkOne = SessionCheck(app: try TestSite.webApp())
            let oldRecord = try #require(try store.load(old))
            #expect(checkTwo.verdict(of: oldRecord, now: now) == .migrates(writtenBy: "1"))
            #expect(
                checkOne.verdict(of: try #require(try store.load(newer)), now: now) == .newerVersion(writtenBy: "2"))
            #expect(checkTwo.verdict(of: try #require(try store.load(newer)), now: now) == .readsAsIs)
            guard case .resets(let cause, _) = checkOne.verdict(of: oldRecord, now: now) else {
                Issue.record("version 1 without its own names must reset")
                return
            }
            #expect(cause == "unknown-flow", "flows are read before their pages")
            #expect(checkTwo.verdict(of: oldRecord, now: oldRecord.expiresAt) == .gone)

            let migrated = try #require(checkTwo.migrated(oldRecord))
            try store.commit(migrated, expectedVersion: oldRecord.version, entries: [])
            #expect(checkTwo.verdict(of: migrated, now: now) == .readsAsIs)
            #expect(checkTwo.migrated(migrated) == nil)
            let api = API(browser: TestBrowser(port: two.port), bearer: old)
            #expect(try await api.call("GET", "/api/v1/session/history").text.contains(#""name":"itemIsPicked""#))
            #expect(try await api.call("GET", "/api/v1/session/history/2/state").status == 200)
        }
    }

    @Test("history no migration makes readable is a 409 problem, never a 5xx; the session's pages still work")
    func unreadableHistory() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let history = try site.store.history(id, after: 0, limit: 100)
            let record = try #require(try site.store.load(id))
            try site.store.delete(id)
            try site.store.create(
                record,
                entries: history.map {
                    HistoryRecord(seq: $0.seq, entry: Self.replacing($0.entry, [(#"{"itemIsPicked""#, #"{"mystery""#)]))
                })
            let api = API(browser: TestBrowser(port: site.port), bearer: id)
            for path in ["/api/v1/session/history", "/api/v1/session/history/\(record.lastSeq)/state"] {
                let answer = try await api.call("GET", path)
                #expect(answer.status == 409, "\(path): \(answer.text.prefix(200))")
                #expect(answer.header("Content-Type") == "application/problem+json")
            }
            #expect(try await browser.get("/_inspector").status == 409)
            #expect(try await browser.get("/items/7").status == 200)
        }
    }

    @Test("a session set aside by a build without the migration comes back with one that has it, nothing lost")
    func restore() async throws {
        try await withVersions { one, two, store in
            let (browser, id) = try await versionOneSession(one)
            // Version 1 here has none of the old names: it sets the session aside and starts it again.
            #expect(try await browser.get("/").status == 303)
            _ = try await browser.follow("Item 7", on: "/a")
            let current = try #require(try store.load(id))
            let copy = try #require(try store.quarantined(id).last)
            let check = SessionCheck(app: try TestSite.webApp(version: "2", migrations: Self.migrations))
            #expect(SessionCheck(app: try TestSite.webApp()).restored(copy, over: current, now: 1) == nil)
            #expect(check.wasRestarted(current))
            let restoration = try #require(check.restored(copy, over: current, now: two.clock.now))
            try store.commit(restoration.record, expectedVersion: current.version, entries: restoration.entries)

            let api = API(browser: TestBrowser(port: two.port), bearer: id)
            let state = try api.object(try await api.call("GET", "/api/v1/session"))
            #expect((state["top"] as? [String: Any])?["url"] as? String == "/greeting")
            let history = try await api.call("GET", "/api/v1/session/history")
            #expect(history.status == 200)
            let sources = (try api.object(history)["entries"] as? [[String: Any]])?.compactMap {
                $0["source"] as? String
            }
            #expect(sources?.first == "start" && sources?.last == "restart")
            #expect(sources?.filter { $0 == "restart" }.count == 2, "the restart, and the restore")
            let last = try await api.call("GET", "/api/v1/session/history/\(restoration.record.lastSeq)/state")
            #expect(last.status == 200)
            #expect(!check.wasRestarted(restoration.record))
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

/// What needs no migration: a later version that adds a page, a flow and an optional field of
/// its app data reads an earlier version's sessions as they are.
@Suite("Changes that need no migration")
struct NoMigrationTests {
    private struct NewsPage: WebPage {
        static let name = "news"
        static let template = "pages/help"
        var path: PagePath { "/news" }
        var title: String { "News" }
        struct Model: Encodable {}
        func model(in context: PageContext) throws -> Model { Model() }
    }

    private struct NewsFlow: Flow {
        static let name = "news"
        static let container = ContainerKind.stack
        mutating func navigate(to step: WebStep, context: FlowContext) -> FlowContributors<WebStep> {
            .one(.push(NewsPage()))
        }
    }

    private struct SessionDataWithTheme: AppData {
        var greetings = 0
        var theme: String?
    }

    @Test("a new page, a new flow and a new optional app data field: sessions read as they are")
    func additions() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let record = try #require(try site.store.load(id))
            let pages: [any WebPage.Type] = [
                ListPage.self, ItemPage.self, GreetingPage.self, HelpPage.self, OptionsPage.self,
                OptionDetailPage.self, NewsPage.self,
            ]
            let flows = try FlowApp(
                root: RootFlow(), stepper: OneStepper(withSingleStep: WebStep.start),
                flows: [RootFlow.self, TabsFlow.self, ListFlow.self, OptionsFlow.self, NewsFlow.self], pages: pages,
                appData: SessionDataWithTheme.self)
            let later = SessionCheck(app: try WebApp(flows: flows, pages: pages, version: "2"))
            #expect(later.verdict(of: record, now: site.clock.now) == .readsAsIs)
        }
    }
}
