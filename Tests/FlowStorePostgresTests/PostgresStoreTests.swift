import FlowStore
import FlowStorePostgres
import FlowTesting
import Foundation
import PostgresNIO
import ProcessTestSupport
import Testing

private func record(_ id: String, version: Int = 1, expiresAt: Int64 = 2_000, lastSeq: Int = 1) -> SessionRecord {
    SessionRecord(
        id: id, version: version, tree: Array("{\"tree\":\(version)}".utf8), appData: [1, 2], csrfToken: "token",
        lastSeq: lastSeq,
        extra: [3], createdAt: 1_000, lastUsedAt: 1_000, expiresAt: expiresAt)
}

/// Runs `body` with a store on the database at `url`: its service running, prepared (migrated).
/// `timeout` bounds each call (the store's default unless a test that measures no outage asks for
/// more: a cluster just started while the whole suite runs on two cores can take over 3 s to
/// answer its first connection).
private func withStore<Result: Sendable>(
    _ url: String, timeout: Duration = .seconds(3), vacuumHistoryAfter: Int = 50_000,
    _ body: (PostgresSessionStore) async throws -> Result
)
    async throws -> Result
{
    let store = try PostgresSessionStore(url: url, timeout: timeout, vacuumHistoryAfter: vacuumHistoryAfter)
    return try await withRunningServices(store.services) {
        try await store.prepare()
        return try await body(store)
    }
}

@Suite("PostgreSQL session store", .serialized)
struct PostgresStoreTests {
    @Test(
        "commits made together: one the database refuses (an entry's seq stored already) fails alone, the others are made"
    )
    func refusedCommitAmongOthers() async throws {
        let cluster = try await PostgresCluster.started()
        try await withStore(cluster.url, timeout: .seconds(15)) { store in
            let ids = (0..<16).map { "together-\($0)" }
            for id in ids {
                try await store.create(record(id, version: 2), entries: [HistoryRecord(seq: 1, entry: [1])])
            }
            let refused = 5
            let failures = await commitAtOnce(
                to: store,
                ids.enumerated().map { index, id in
                    (record(id, version: 3, lastSeq: 2), 2, [HistoryRecord(seq: index == refused ? 1 : 2, entry: [2])])
                })
            #expect(Array(failures.keys) == [refused])
            #expect(failures[refused]?.isUnavailable == true)
            for (index, id) in ids.enumerated() {
                #expect(try await store.load(id)?.version == (index == refused ? 2 : 3))
                let seqs = try await store.history(id, after: 0, limit: 10).map(\.seq)
                #expect(seqs == (index == refused ? [1] : [1, 2]))
            }
        }
    }

    @Test("create, load, optimistic commits, history, purge, delete — and 503-style errors while the database is down")
    func store() async throws {
        let cluster = try await PostgresCluster.started()
        try await withStore(cluster.url) { store in
            try await store.create(record("a"), entries: [HistoryRecord(seq: 1, entry: [9])])
            #expect(try await store.load("a") == record("a"))
            await #expect(throws: StoreError.self) { try await store.create(record("a"), entries: []) }
            try await store.commit(
                record("a", version: 2, lastSeq: 2), expectedVersion: 1, entries: [HistoryRecord(seq: 2, entry: [8])])
            do throws(StoreError) {
                try await store.commit(record("a", version: 3), expectedVersion: 1, entries: [])
                Issue.record("a stale version must conflict")
            } catch {
                #expect(error.isConflict)
            }
            #expect(try await store.history("a", after: 0, limit: 10).map(\.seq) == [1, 2])
            try await store.dropHistory("a", before: 2)
            #expect(try await store.history("a", after: 0, limit: 10).map(\.seq) == [2], "folded: entry 2 on")
            for index in 0..<3 { try await store.create(record("old\(index)", expiresAt: 100), entries: []) }
            #expect(try await store.liveCount(now: 500) == 1)
            #expect(try await store.purgeExpired(now: 500, limit: 2) == 2)
            #expect(try await store.purgeExpired(now: 500, limit: 2) == 1)
            try await checkQuarantine(of: store)
            try await checkSessionPages(of: store)
            try await checkFolds(of: store)
            try await checkCommitsAtOnce(of: store)
            try await checkConditionalLoad(of: store)
            try await checkStamps(of: store)
            // A second connection (another instance) sees the same session, migrations already done,
            // and signs ids with the same secret.
            try await withStore(cluster.url) { other in
                #expect(try await other.load("a")?.version == 2)
                let secret = [UInt8](repeating: 7, count: 32)
                #expect(try await store.sessionSecret(proposing: secret) == secret)
                #expect(try await other.sessionSecret(proposing: [UInt8](repeating: 8, count: 32)) == secret)
                try await store.create(SessionRecord.deleted(id: "gone", until: 3_000), entries: [])
                #expect(try await store.liveCount(now: 500) == 1, "a deleted session's marker is not live")
                #expect(try await store.load("gone")?.isDeleted == true)
                // Database down: bounded failures, marked unavailable; back up: the pool recovers.
                try await cluster.stopped()
                let started = ContinuousClock.now
                do throws(StoreError) {
                    _ = try await store.load("a")
                    Issue.record("a stopped database must fail")
                } catch {
                    #expect(error.isUnavailable)
                }
                #expect(ContinuousClock.now - started < .seconds(10))
                try await cluster.restarted()
                var recovered = false
                for _ in 0..<40 where !recovered {
                    if (try? await store.load("a")) != nil {
                        recovered = true
                    } else {
                        try await Task.sleep(for: .milliseconds(250))
                    }
                }
                #expect(recovered)
                try await store.delete("a")
                #expect(try await store.load("a") == nil)
            }
        }
    }
}

extension PostgresStoreTests {
    @Test("once the entries it folded away reach its floor, the store vacuums the history table, not before")
    func vacuumsHistoryAfterFolds() async throws {
        let cluster = try await PostgresCluster.started()
        try await withStore(cluster.url, vacuumHistoryAfter: 100) { store in
            let entry = [UInt8](repeating: 7, count: 100)
            try await store.create(
                record("long", lastSeq: 300), entries: (1...300).map { HistoryRecord(seq: $0, entry: entry) })
            try await store.dropHistory("long", before: 51)
            // The store looks at its count every second: 50 folded entries are not enough.
            try await Task.sleep(for: .seconds(2.5))
            #expect(try await vacuumsOfHistory(in: cluster) == 0)
            try await store.dropHistory("long", before: 201)
            var vacuums = 0
            for _ in 0..<40 where vacuums == 0 {
                try await Task.sleep(for: .milliseconds(250))
                vacuums = try await vacuumsOfHistory(in: cluster)
            }
            #expect(vacuums == 1, "200 entries folded away, past the floor of 100: one vacuum")
            #expect(try await store.history("long", after: 0, limit: 500).map(\.seq) == Array(201...300))
        }
    }

    /// How many times the history table of `cluster` was vacuumed other than by autovacuum, as
    /// PostgreSQL counts them.
    private func vacuumsOfHistory(in cluster: PostgresCluster) async throws -> Int {
        let connection = try await PostgresConnection.connect(
            on: PostgresClient.defaultEventLoopGroup.next(),
            configuration: .init(
                host: "127.0.0.1", port: cluster.port, username: "flow", password: "flow", database: "flowtest",
                tls: .disable),
            id: 1, logger: Logger(label: "vacuums"))
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(
            "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'history'", logger: Logger(label: "vacuums"))
        var counts: [Int] = []
        for try await count in rows.decode(Int64.self) { counts.append(Int(count)) }
        return counts.first ?? -1
    }

    /// PostgresNIO's pool tries to connect again and again while the database is down, each try
    /// 1.25 times later than the one before: after 20 s of outage, 3–5 s apart, longer than a
    /// call waits. The store makes a new pool when it reaches the database again.
    @Test("after a long outage, calls through the pool are answered as soon as the store reaches the database again")
    func recoveryAfterLongOutage() async throws {
        let cluster = try await PostgresCluster.started()
        try await withStore(cluster.url) { store in
            try await store.create(record("kept"), entries: [HistoryRecord(seq: 1, entry: [1])])
            try await cluster.stopped()
            // A call through the pool while the database is down: the pool tries to connect from
            // then on.
            await #expect(throws: StoreError.self) { try await store.history("kept", after: 0, limit: 10) }
            try await Task.sleep(for: .seconds(20))
            try await cluster.restarted()
            // Calls are refused until the store's own try reaches the database; a batched call
            // (a connection of its own) tells when it did.
            var reached = false
            for _ in 0..<100 where !reached {
                if case .some(.some) = try? await store.stamp("kept") {
                    reached = true
                } else {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(reached, "the store reaches the database again by itself")
            #expect(try await store.history("kept", after: 0, limit: 10).map(\.seq) == [1])
            #expect(try await store.load("kept")?.version == 1)
        }
    }

    /// PostgresNIO 1.33 traps (`RowStreamStateMachine.channelReadComplete`) when the connection
    /// closes while a result's rows wait for its consumer to ask for more: reads that span
    /// several network reads, a consumer behind, and the database stopping like a crash.
    @Test("the database dying while large results stream never stops the process; calls fail as unavailable")
    func outageWhileStreaming() async throws {
        let cluster = try await PostgresCluster.started()
        try await withStore(cluster.url) { store in
            let entry = [UInt8](repeating: 42, count: 32 * 1024)
            let entries = (1...64).map { HistoryRecord(seq: $0, entry: entry) }
            try await store.create(record("big", lastSeq: 64), entries: entries)
            for outage in 0..<3 {
                if outage > 0 {
                    try await cluster.restarted()
                    var back = false
                    for _ in 0..<40 where !back {
                        if (try? await store.load("big")) != nil {
                            back = true
                        } else {
                            try await Task.sleep(for: .milliseconds(250))
                        }
                    }
                    #expect(back, "the store reconnects after outage \(outage)")
                }
                let outcomes = try await withThrowingTaskGroup(of: Int.self) { group in
                    for reader in 0..<16 {
                        group.addTask {
                            var answered = 0
                            for _ in 0..<50 {
                                do {
                                    let read = try await store.history("big", after: 0, limit: 64)
                                    #expect(read.count == 64 && read.allSatisfy { $0.entry == entry })
                                    answered += 1
                                } catch let error as StoreError {
                                    #expect(error.isUnavailable, "reader \(reader): \(error)")
                                    break
                                } catch {
                                    Issue.record("reader \(reader): \(error)")
                                    break
                                }
                            }
                            return answered
                        }
                    }
                    try await Task.sleep(for: .milliseconds(300 + 100 * outage))
                    try await cluster.stopped()
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(outcomes.reduce(0, +) > 0, "some reads were answered before outage \(outage)")
            }
        }
    }
}
