import FlowCore
import FlowStore
import FlowTesting
import Foundation
import Synchronization
import Testing

@testable import FlowWeb

@Suite("Reading sessions on the calling thread")
struct ImmediateLoadingTests {
    private func record(version: Int, lastUsedAt: Int64 = 1_000, expiresAt: Int64 = 9_000) -> SessionRecord {
        SessionRecord(
            id: String(repeating: "ab", count: 24), version: version, tree: [1, 2, 3], appData: [4],
            csrfToken: String(repeating: "c", count: 32),
            lastSeq: 1, extra: [5], createdAt: 500, lastUsedAt: lastUsedAt, expiresAt: expiresAt)
    }

    @Test("the memory store's stamp is its record's version and times, and follows commits")
    func memoryStamp() throws {
        let store = MemorySessionStore()
        try store.create(record(version: 1), entries: [])
        let id = record(version: 1).id
        #expect(try store.stampImmediately(id) == SessionStamp(record(version: 1)))
        try store.commit(record(version: 2, lastUsedAt: 2_000, expiresAt: 12_000), expectedVersion: 1, entries: [])
        #expect(try store.stampImmediately(id) == SessionStamp(version: 2, lastUsedAt: 2_000, expiresAt: 12_000))
        #expect(try store.stampImmediately("nobody") == nil)
    }

    @Test("a thread's own copy of a record equals the record, in storage of its own")
    func privateRecord() {
        let shared = record(version: 3)
        let copy = SessionRecord(ownCopyOf: shared)
        #expect(copy == shared)
        shared.tree.withUnsafeBufferPointer { original in
            copy.tree.withUnsafeBufferPointer { own in #expect(original.baseAddress != own.baseAddress) }
        }
        var (sharedToken, ownToken) = (shared.csrfToken, copy.csrfToken)
        let sameTokenStorage = sharedToken.withUTF8 { a in ownToken.withUTF8 { b in a.baseAddress == b.baseAddress } }
        #expect(!sameTokenStorage)
    }

    /// A session service of `app` over `store`, and its fast page path.
    private func fastPath(of app: WebApp<WebStep>, over store: any SessionStore) throws
        -> (SessionService<WebStep>, FastPagePath)
    {
        let service = SessionService(
            app: app, store: store, ttlSeconds: 3600, secret: SessionIDs.randomSecret(), observers: [])
        let fastPath = try #require(FastPagePath(service.fastPathSessions))
        return (service, fastPath)
    }

    /// The address of the top page's unchanging parts: equal for copies sharing storage, which
    /// a tree decoded anew does not.
    private func storage(of tree: NavigationTree) -> UnsafeRawPointer? {
        tree.top?.stateHead.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test(
        "a thread shows a version from the shared tree once, then from a tree of its own; chrome is made once per version"
    )
    func shownSessions() async throws {
        let app = try TestSite.webApp()
        let store = MemorySessionStore()
        let (service, fastPath) = try fastPath(of: app, over: store)
        let created = try await service.create(client: nil)
        let id = created.record.id
        let chromes = Mutex(0)
        let top = try #require(created.tree.top?.url)
        let show: @Sendable () -> ShownSession? = {
            fastPath.show(id, at: top) { (session) throws(WebError) in
                chromes.withLock { $0 += 1 }
                return try PageChrome(session.tree, app: app.pages)
            }
        }
        // Runs on one thread of its own: what is kept is per thread.
        let shared = try #require(service.decoded.cached(id, version: created.record.version)).tree
        let results = try await onThread { () -> [Bool] in
            (0..<3).compactMap { _ in
                guard let shown = show() else { return nil }
                precondition(shown.session.tree == shared && shown.session.record == created.record)
                return self.storage(of: shown.session.tree) == self.storage(of: shared)
            }
        }
        #expect(results == [true, false, false], "the shared tree first, then the thread's own")
        #expect(chromes.withLock { $0 } == 1)
        // A new version (a commit) is shown anew, with chrome made for it.
        var changed = created.record
        changed.version += 1
        try store.commit(changed, expectedVersion: created.record.version, entries: [])
        #expect(show()?.session.record.version == changed.version)
        #expect(chromes.withLock { $0 } == 2)
        // A version stored while this instance changes the session (its own commit, not cached
        // yet) is left to the async path, which decodes it only if it must; once the change is
        // over, another writer's version is read and shown here again.
        var newer = changed
        newer.version += 1
        let (next, expected) = (newer, changed.version)
        try await service.locks.holding(created) {
            try store.commit(next, expectedVersion: expected, entries: [])
            #expect(show() == nil)
        }
        #expect(show()?.session.record.version == newer.version)
        #expect(fastPath.show("nobody", at: top) { _ throws(WebError) in fatalError("not made") } == nil)
        // A visit to another page is the async path's: nothing is made for it.
        #expect(fastPath.show(id, at: "/elsewhere") { _ throws(WebError) in fatalError("not made") } == nil)
    }

    @Test(
        "on a shared store that tells stamps, a page is shown from the version this instance holds, after a stamp and no read; another instance's version is the async path's to read"
    )
    func shownAfterStamp() async throws {
        let app = try TestSite.webApp()
        let store = SessionUpdateTests.ReadCountingStore()
        let (service, fastPath) = try fastPath(of: app, over: store)
        let created = try await service.create(client: nil)
        let id = created.record.id
        let top = try #require(created.tree.top?.url)
        let chrome = { @Sendable (session: LoadedSession) throws(WebError) in
            try PageChrome(session.tree, app: app.pages)
        }
        #expect(fastPath.show(id, at: top, chrome: chrome) == nil, "nothing is read on the server's thread")
        let shown = try #require(await fastPath.showAfterStamp(id, at: top, chrome: chrome))
        #expect(shown.session.record == created.record)
        #expect((store.stamps, store.loads) == (1, 0))
        // Another instance commits: the stamp tells, and the version is left to the async path.
        var newer = created.record
        newer.version += 1
        newer.lastUsedAt += 1
        try store.inner.commit(newer, expectedVersion: created.record.version, entries: [])
        #expect(await fastPath.showAfterStamp(id, at: top, chrome: chrome) == nil)
        #expect((store.stamps, store.loads) == (2, 0))
        #expect(try await service.load(id)?.record == newer)
        let again = try #require(await fastPath.showAfterStamp(id, at: top, chrome: chrome))
        #expect(again.session.record == newer)
        #expect((store.stamps, store.loads) == (3, 1))
        #expect(await fastPath.showAfterStamp(id, at: "/elsewhere", chrome: chrome) == nil)
        #expect(store.stamps == 3, "a page the held copy does not show on top is the async path's: no stamp")
    }

    @Test(
        "over HTTP, on a shared store that tells stamps, a reload of the page held on top is answered after its stamp alone; another instance's version through the async path"
    )
    func answeredLaterOverHTTP() async throws {
        let store = SessionUpdateTests.ReadCountingStore()
        let server = try startInstance(on: store)
        let port = server.port
        let created = try await fetch(port: port, "/api/v1/sessions", method: "POST")
        #expect(created.status == 201)
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["session"] as? String)
        let cookie = [("Cookie", "\(WebConfiguration.cookieName)=\(id)")]
        let (stamps, loads) = (store.stamps, store.loads)
        // Eight reloads at once: each answered from the version held, after a stamp, with no read.
        let pages = try await withThrowingTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<8 { group.addTask { try await fetch(port: port, "/a", headers: cookie) } }
            return try await group.reduce(into: [TestResponse]()) { $0.append($1) }
        }
        #expect(pages.allSatisfy { $0.status == 200 && $0.text.contains("href=\"/b\"") }, "\(pages.map(\.text))")
        #expect(pages.allSatisfy { $0.header("Content-Security-Policy") != nil }, "FlowWeb's middleware ran on them")
        #expect(store.stamps - stamps == 8 && store.loads == loads)
        #expect(store.stampsToCallbacks == 8, "the server's later answer, not a task's")
        // Another instance commits: the stamp tells, and the page is read and shown through the
        // async path.
        let held = try #require(try store.inner.load(id))
        var newer = held
        newer.version += 1
        try store.inner.commit(newer, expectedVersion: held.version, entries: [])
        let page = try await fetch(port: port, "/a", headers: cookie)
        #expect(page.status == 200 && page.text.contains("href=\"/b\""))
        #expect(store.stamps - stamps == 9 && store.loads == loads + 1 && store.stampsToCallbacks == 9)
        await server.stop()
    }
}
