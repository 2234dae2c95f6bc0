import FlowCore
import FlowStore
import FlowTesting
import Foundation
import Synchronization
import Testing

@testable import FlowWeb

@Suite("Changing a session under its lock")
struct SessionUpdateTests {
    /// A memory store that counts its reads (of contents, and of stamps) and its commits, can
    /// hold commits back (as a database's round trip would), and can commit behind the service's
    /// back as another instance would.
    final class ReadCountingStore: SessionStamping {
        let inner = MemorySessionStore()
        private let count = Atomic<Int>(0)
        private let stampCount = Atomic<Int>(0)
        private let commitCount = Atomic<Int>(0)
        /// How many commits may still go through (`nil`: any number).
        private let commitPermits = Mutex<Int?>(nil)
        private let heldCount = Atomic<Int>(0)
        var loads: Int { count.load(ordering: .relaxed) }
        var stamps: Int { stampCount.load(ordering: .relaxed) }
        /// The commits made (or refused for their version), not counting those still held.
        var commits: Int { commitCount.load(ordering: .relaxed) }
        /// How many commits wait to go through.
        var heldCommits: Int { heldCount.load(ordering: .relaxed) }
        var isShared: Bool { true }

        /// Lets `permits` more commits through, holding back those after (`nil`: all of them).
        func allowCommits(_ permits: Int?) { commitPermits.withLock { $0 = permits } }

        func stamp(_ id: String) async throws(StoreError) -> SessionStamp? {
            stampCount.add(1, ordering: .relaxed)
            return try inner.stampImmediately(id)
        }

        /// Stamps asked for with a callback (a page answered later, with no task).
        var stampsToCallbacks: Int { callbackStampCount.load(ordering: .relaxed) }
        private let callbackStampCount = Atomic<Int>(0)

        /// Answers from another thread, as a database client's would.
        func stamp(_ id: String, then: @escaping @Sendable (Result<SessionStamp?, StoreError>) -> Void) {
            callbackStampCount.add(1, ordering: .relaxed)
            stampCount.add(1, ordering: .relaxed)
            let inner = inner
            Thread.detachNewThread {
                do throws(StoreError) { then(.success(try inner.stampImmediately(id))) } catch { then(.failure(error)) }
            }
        }

        func load(_ id: String) async throws(StoreError) -> SessionRecord? {
            count.add(1, ordering: .relaxed)
            return try inner.load(id)
        }
        func create(_ record: SessionRecord, entries: [HistoryRecord]) async throws(StoreError) {
            try inner.create(record, entries: entries)
        }
        func commit(_ record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord]) async throws(StoreError) {
            heldCount.add(1, ordering: .relaxed)
            while !commitPermits.withLock({ permits in
                guard let left = permits else { return true }
                guard left > 0 else { return false }
                permits = left - 1
                return true
            }) {
                try? await Task.sleep(for: .milliseconds(1))
            }
            heldCount.subtract(1, ordering: .relaxed)
            commitCount.add(1, ordering: .relaxed)
            try inner.commit(record, expectedVersion: expectedVersion, entries: entries)
        }
        func history(_ id: String, after: Int, limit: Int) async throws(StoreError) -> [HistoryRecord] {
            try inner.history(id, after: after, limit: limit)
        }
        func delete(_ id: String) async throws(StoreError) { try inner.delete(id) }
        func dropHistory(_ id: String, before: Int) async throws(StoreError) {
            try inner.dropHistory(id, before: before)
        }
        func purgeExpired(now: Int64, limit: Int) async throws(StoreError) -> Int {
            try inner.purgeExpired(now: now, limit: limit)
        }
        func liveCount(now: Int64) async throws(StoreError) -> Int { try inner.liveCount(now: now) }
        func quarantine(_ session: QuarantinedSession) async throws(StoreError) { try inner.quarantine(session) }
        func quarantined(_ id: String) async throws(StoreError) -> [QuarantinedSession] { try inner.quarantined(id) }
        func sessions(after id: String?, limit: Int) async throws(StoreError) -> [SessionRecord] {
            try inner.sessions(after: id, limit: limit)
        }
        func sessionSecret(proposing proposed: [UInt8]) async throws(StoreError) -> [UInt8] {
            try inner.sessionSecret(proposing: proposed)
        }
        func exclusiveUpdate<Outcome: Sendable>(
            _ id: String, _ change: @escaping @Sendable (SessionRecord?) async -> ExclusiveChange<Outcome>
        ) async throws(StoreError) -> Outcome {
            try await inner.exclusiveUpdate(id, change)
        }
    }

    /// A session of the test site, created over a store that counts its reads.
    static func createdSession() async throws -> (ReadCountingStore, SessionService<WebStep>, LoadedSession) {
        let store = ReadCountingStore()
        let service = SessionService(
            app: try TestSite.webApp(), store: store, ttlSeconds: 3600, secret: SessionIDs.randomSecret(),
            observers: [])
        return (store, service, try await service.create(client: nil))
    }

    /// A change that remembers submission `render` and saves.
    static func remember(_ render: String)
        -> @Sendable (inout LoadedSession) async throws(WebError) ->
        SessionService<
            WebStep
        >.Change<Int>
    {
        { (session: inout LoadedSession) throws(WebError) in
            session.extra.remember(.init(render: render, step: "s", location: "/"))
            return .init(result: session.record.version, save: true)
        }
    }

    @Test("a change runs ahead of requests not started: its task is raised to high priority, and so is its answer")
    func changeRunsAhead() async throws {
        let (_, service, created) = try await Self.createdSession()
        let request = Task(priority: .medium) { () async throws -> [TaskPriority] in
            let before = Task.currentPriority
            let during = Mutex<TaskPriority?>(nil)
            _ = try await service.update(created) { (session: inout LoadedSession) throws(WebError) in
                during.withLock { $0 = Task.currentPriority }
                session.extra.remember(.init(render: "r", step: "s", location: "/"))
                return .init(result: 0, save: true)
            }
            return [before, try #require(during.withLock { $0 }), Task.currentPriority]
        }
        let priorities = try await request.value
        #expect(priorities[0] == .medium, "a request starts at the default priority")
        #expect(priorities[1] == .high, "its change runs at high priority")
        #expect(priorities[2] == .high, "and so does the rest of its answer, after the commit")
    }

    @Test(
        "a change that waited for the lock starts from the copy this instance committed meanwhile, without reading again; another instance's commit is caught"
    )
    func startsFromNewestCopy() async throws {
        let (store, service, created) = try await Self.createdSession()
        let id = created.record.id
        // Two requests read the session at the same version, then change it in turn.
        let first = try #require(try await service.load(id))
        let second = try #require(try await service.load(id))
        let reads = store.loads
        let one = try await service.update(first, Self.remember("r1"))
        let two = try await service.update(second, Self.remember("r2"))
        #expect(store.loads == reads, "no read again: the second started from the first's commit")
        #expect(two.result == created.record.version + 1)
        #expect(two.session.record.version == one.session.record.version + 1)
        #expect(two.session.extra.submissions.map(\.render) == ["r1", "r2"], "neither change lost")

        // Another instance commits: this instance's copy is stale, its commit conflicts, and the
        // change is applied again to the stored session.
        var elsewhere = try #require(try store.inner.load(id))
        elsewhere.version += 1
        elsewhere.extra = try CompactJSONEncoder().encode(
            {
                var extra = two.session.extra
                extra.remember(.init(render: "b", step: "s", location: "/"))
                return extra
            }())
        try store.inner.commit(elsewhere, expectedVersion: elsewhere.version - 1, entries: [])
        let three = try await service.update(two.session, Self.remember("r3"))
        #expect(three.session.record.version == elsewhere.version + 1)
        #expect(three.session.extra.submissions.map(\.render) == ["r1", "r2", "b", "r3"])
        #expect(try store.inner.load(id)?.version == elsewhere.version + 1)
    }

    @Test(
        "a change takes the copy this instance holds without a read; a stale copy is read again and the change applied to the stored version; an answer that commits nothing, or an error, is checked against the store"
    )
    func heldCopy() async throws {
        let (store, service, created) = try await Self.createdSession()
        let id = created.record.id
        let reads = store.loads
        let held = try #require(try await service.loadForChange(id))
        #expect(!held.isConfirmed)
        let one = try await service.update(held, Self.remember("r1"))
        #expect(store.loads == reads, "a current copy: the commit alone, no read")
        #expect(one.session.isConfirmed && one.session.record.version == created.record.version + 1)

        // Another writer commits behind this instance's back each time below.
        func commitElsewhere(_ render: String) throws -> Int {
            var elsewhere = try #require(try store.inner.load(id))
            var extra = try CompactJSONDecoder().decode(SessionExtra.self, from: elsewhere.extra)
            extra.remember(.init(render: render, step: "s", location: "/"))
            elsewhere.extra = try CompactJSONEncoder().encode(extra)
            elsewhere.version += 1
            try store.inner.commit(elsewhere, expectedVersion: elsewhere.version - 1, entries: [])
            return elsewhere.version
        }
        let renders = { @Sendable (session: LoadedSession) in session.extra.submissions.map(\.render) }

        // A change: its commit conflicts, and it is applied again to the stored session.
        let b = try commitElsewhere("b")
        let stale = try #require(try await service.loadForChange(id))
        #expect(stale.record.version == one.session.record.version)
        let two = try await service.update(stale, Self.remember("r2"))
        #expect(two.session.record.version == b + 1)
        #expect(renders(two.session) == ["r1", "b", "r2"])
        #expect(try store.inner.load(id)?.version == b + 1)

        // An answer that commits nothing comes from the stored version.
        let c = try commitElsewhere("c")
        let looked = try await service.update(try #require(try await service.loadForChange(id))) {
            (session: inout LoadedSession) throws(WebError) in
            .init(result: (session.record.version, renders(session)))
        }
        #expect(looked.result.0 == c && looked.result.1 == ["r1", "b", "r2", "c"])
        #expect(looked.session.isConfirmed)

        // An error worked out on a stale copy is worked out again on the stored version.
        let d = try commitElsewhere("d")
        let checked = try await service.update(try #require(try await service.loadForChange(id))) {
            (session: inout LoadedSession) throws(WebError) in
            guard renders(session).last == "d" else { throw .notFound("not there yet") }
            return .init(result: session.record.version)
        }
        #expect(checked.result == d)
        // On a current copy, the error stands.
        await #expect(throws: WebError.self) {
            _ = try await service.update(try #require(try await service.loadForChange(id))) {
                (session: inout LoadedSession) throws(WebError) -> SessionService<WebStep>.Change<Int> in
                throw .notFound("never there")
            }
        }
        #expect(try store.inner.load(id)?.version == d, "nothing committed by answers that commit nothing")
    }
}
