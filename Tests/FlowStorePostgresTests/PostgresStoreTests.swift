import FlowStore
import FlowStorePostgres
import Foundation
import ProcessTestSupport
import Testing

private func record(_ id: String, version: Int = 1, expiresAt: Int64 = 2_000, lastSeq: Int = 1) -> SessionRecord {
    SessionRecord(
        id: id, version: version, tree: Array("{\"tree\":\(version)}".utf8), appData: [1, 2], csrfToken: "token", lastSeq: lastSeq,
        extra: [3], createdAt: 1_000, lastUsedAt: 1_000, expiresAt: expiresAt)
}

@Suite("PostgreSQL session store", .serialized)
struct PostgresStoreTests {
    @Test("create, load, optimistic commits, history, purge, delete — and 503-style errors while the database is down")
    func store() async throws {
        let cluster = try PostgresCluster()
        let store = try await PostgresSessionStore.connect(url: cluster.url)
        try await store.create(record("a"), entries: [HistoryRecord(seq: 1, entry: [9])])
        #expect(try await store.load("a") == record("a"))
        await #expect(throws: StoreError.self) { try await store.create(record("a"), entries: []) }
        try await store.commit(record("a", version: 2, lastSeq: 2), expectedVersion: 1, entries: [HistoryRecord(seq: 2, entry: [8])])
        do {
            try await store.commit(record("a", version: 3), expectedVersion: 1, entries: [])
            Issue.record("a stale version must conflict")
        } catch {
            #expect(error.isConflict)
        }
        #expect(try await store.history("a", after: 0, limit: 10).map(\.seq) == [1, 2])
        for index in 0..<3 { try await store.create(record("old\(index)", expiresAt: 100), entries: []) }
        #expect(try await store.liveCount(now: 500) == 1)
        #expect(try await store.purgeExpired(now: 500, limit: 2) == 2)
        #expect(try await store.purgeExpired(now: 500, limit: 2) == 1)
        // A second connection (another instance) sees the same session, migrations already done,
        // and signs ids with the same secret.
        let other = try await PostgresSessionStore.connect(url: cluster.url)
        #expect(try await other.load("a")?.version == 2)
        let secret = [UInt8](repeating: 7, count: 32)
        #expect(try await store.sessionSecret(proposing: secret) == secret)
        #expect(try await other.sessionSecret(proposing: [UInt8](repeating: 8, count: 32)) == secret)
        try await store.create(SessionRecord.deleted(id: "gone", until: 3_000), entries: [])
        #expect(try await store.liveCount(now: 500) == 1, "a deleted session's marker is not live")
        #expect(try await store.load("gone")?.isDeleted == true)
        // Database down: bounded failures, marked unavailable; back up: the pool recovers.
        try cluster.stop()
        let started = ContinuousClock.now
        do {
            _ = try await store.load("a")
            Issue.record("a stopped database must fail")
        } catch {
            #expect(error.isUnavailable)
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        try cluster.start()
        var recovered = false
        for _ in 0..<40 where !recovered {
            if (try? await store.load("a")) != nil { recovered = true } else { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(recovered)
        try await store.delete("a")
        #expect(try await store.load("a") == nil)
    }
}
