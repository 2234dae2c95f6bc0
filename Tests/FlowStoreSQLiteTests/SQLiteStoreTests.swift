import FlowStore
import FlowStoreSQLite
import FlowTesting
import Foundation
import Testing

private func temporaryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
        "flowserver-sqlite-\(UUID().uuidString)/sessions.sqlite"
    ).path
}

private func record(_ id: String, version: Int = 1, expiresAt: Int64 = 2_000, lastSeq: Int = 1) -> SessionRecord {
    SessionRecord(
        id: id, version: version, tree: Array("{\"tree\":\(version)}".utf8), appData: [1, 2], csrfToken: "token",
        lastSeq: lastSeq,
        extra: [3], createdAt: 1_000, lastUsedAt: 1_000, expiresAt: expiresAt)
}

@Suite("SQLite session store")
struct SQLiteStoreTests {
    @Test("create, load, commit with optimistic concurrency, and page through history")
    func roundTrip() async throws {
        let store = try SQLiteSessionStore(path: temporaryPath())
        try await store.create(record("a"), entries: [HistoryRecord(seq: 1, entry: [9])])
        #expect(try await store.load("a") == record("a"))
        #expect(try await store.load("nobody") == nil)
        await #expect(throws: StoreError.self) { try await store.create(record("a"), entries: []) }
        try await store.commit(
            record("a", version: 2, lastSeq: 3), expectedVersion: 1,
            entries: [HistoryRecord(seq: 2, entry: [8]), HistoryRecord(seq: 3, entry: [7])])
        do {
            try await store.commit(record("a", version: 3), expectedVersion: 1, entries: [])
            Issue.record("a stale version must conflict")
        } catch {
            #expect(error.isConflict)
        }
        #expect(try await store.load("a")?.version == 2)
        #expect(
            try await store.loadImmediately("a") == store.load("a"),
            "the read on the calling thread sees what load sees")
        #expect(try store.loadImmediately("nobody") == nil)
        #expect(try store.stampImmediately("a") == SessionStamp(version: 2, lastUsedAt: 1_000, expiresAt: 2_000))
        #expect(try store.stampImmediately("nobody") == nil)
        #expect(try await store.history("a", after: 0, limit: 10).map(\.seq) == [1, 2, 3])
        #expect(try await store.history("a", after: 1, limit: 1) == [HistoryRecord(seq: 2, entry: [8])])
        try await store.dropHistory("a", before: 3)
        #expect(try await store.history("a", after: 0, limit: 10).map(\.seq) == [3], "folded: entry 3 on")
        try await store.dropHistory("a", before: 2)
        #expect(try await store.history("a", after: 0, limit: 10).map(\.seq) == [3])
        try await store.delete("a")
        #expect(try await store.load("a") == nil)
        #expect(try await store.history("a", after: 0, limit: 10).isEmpty)
    }

    @Test("the session secret: the first proposal is kept, across reopening; deleted markers are not live")
    func secretAndMarkers() async throws {
        let path = temporaryPath()
        let first = [UInt8](repeating: 1, count: 32)
        do {
            let store = try SQLiteSessionStore(path: path)
            #expect(try await store.sessionSecret(proposing: first) == first)
            #expect(try await store.sessionSecret(proposing: [UInt8](repeating: 2, count: 32)) == first)
            try await store.create(record("a"), entries: [])
            try await store.create(SessionRecord.deleted(id: "b", until: 3_000), entries: [])
            #expect(try await store.liveCount(now: 1_500) == 1)
            #expect(try await store.load("b")?.isDeleted == true)
            #expect(try await store.purgeExpired(now: 4_000, limit: 10) == 2)
        }
        let reopened = try SQLiteSessionStore(path: path)
        #expect(try await reopened.sessionSecret(proposing: [UInt8](repeating: 3, count: 32)) == first)
    }

    @Test("a commit stores the expiry it carries, renewed or kept, and a stale version conflicts either way")
    func expiryRenewal() async throws {
        let store = try SQLiteSessionStore(path: temporaryPath())
        try await store.create(record("a"), entries: [])
        var renewed = record("a", version: 2, expiresAt: 9_000)
        renewed.lastUsedAt = 8_000
        try await store.commit(renewed, expectedVersion: 1, entries: [])
        #expect(try await store.load("a") == renewed)
        #expect(try await store.liveCount(now: 5_000) == 1, "the expiry index has the renewed expiry")
        var kept = renewed
        kept.version = 3
        kept.tree = Array("{\"tree\":3}".utf8)
        try await store.commit(kept, expectedVersion: 2, entries: [])
        #expect(try await store.load("a") == kept)
        for stale in [kept, record("a", version: 4, expiresAt: 12_000)] {
            do {
                try await store.commit(stale, expectedVersion: 2, entries: [])
                Issue.record("a stale version must conflict")
            } catch {
                #expect(error.isConflict)
            }
        }
        #expect(try await store.load("a") == kept)
    }

    @Test("while commits keep coming, the write-ahead log is copied into the database and started over")
    func walStartsOver() async throws {
        let path = temporaryPath()
        let store = try SQLiteSessionStore(path: path, checkpointInterval: .milliseconds(5), walRestartFrames: 100)
        let sessions = 4
        for index in 0..<sessions { try await store.create(record("s\(index)"), entries: []) }
        // The log's header counts its restarts (its checkpoint sequence number, bytes 12-15).
        @Sendable func restarts() throws -> UInt32 {
            try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).prefix(16).suffix(4).reduce(0) {
                $0 << 8 | UInt32($1)
            }
        }
        // Writers that never pause, so the log always has frames newer than the last copy; the
        // checkpointer (the store's service) runs meanwhile.
        let versions = try await withRunningServices(store.services) {
            try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for index in 0..<sessions {
                    group.addTask {
                        var version = 1
                        while version < 20_000, try version % 100 != 0 || restarts() < 3 {
                            version += 1
                            var next = record("s\(index)", version: version, lastSeq: version)
                            next.tree = Array(repeating: UInt8(version % 256), count: 1_500)
                            let entry = HistoryRecord(seq: version, entry: [UInt8](repeating: 7, count: 300))
                            try await store.commit(next, expectedVersion: version - 1, entries: [entry])
                        }
                        return ("s\(index)", version)
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
        #expect(try restarts() >= 3, "after \(versions) commits")
        // Started over from its first restarts on, the log stays a few MB (a background copy
        // alone lets it grow past 70 MB before it first catches up with these writers).
        let walBytes = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        #expect(walBytes < 40 << 20, "the log's file has \(walBytes) bytes")
        for (id, version) in versions {
            #expect(try await store.load(id)?.version == version)
            #expect(try await store.history(id, after: 0, limit: 100_000).count == version - 1)
        }
    }

    @Test("sessions and history survive closing and reopening the database")
    func restart() async throws {
        let path = temporaryPath()
        do {
            let store = try SQLiteSessionStore(path: path)
            try await store.create(record("kept"), entries: [HistoryRecord(seq: 1, entry: [1])])
        }
        let reopened = try SQLiteSessionStore(path: path)
        #expect(try await reopened.load("kept") == record("kept"))
        #expect(try await reopened.history("kept", after: 0, limit: 5).count == 1)
    }

    @Test(
        "sessions the app can no longer read are set aside, kept until they expire, across reopening; pages of sessions"
    )
    func quarantine() async throws {
        let path = temporaryPath()
        try await checkQuarantine(of: try SQLiteSessionStore(path: path))
        try await checkSessionPages(of: try SQLiteSessionStore(path: path))
        try await checkFolds(of: try SQLiteSessionStore(path: path))
        try await checkCommitsAtOnce(of: try SQLiteSessionStore(path: path))
        try await checkConditionalLoad(of: try SQLiteSessionStore(path: path))
        #expect(try await SQLiteSessionStore(path: path).quarantined("quarantine-check-1").count == 1)
    }

    @Test("purge removes only expired sessions, in bounded batches")
    func purge() async throws {
        let store = try SQLiteSessionStore(path: temporaryPath())
        for index in 0..<5 { try await store.create(record("old\(index)", expiresAt: 100), entries: []) }
        try await store.create(record("live", expiresAt: 10_000), entries: [])
        #expect(try await store.liveCount(now: 500) == 1)
        #expect(try await store.purgeExpired(now: 500, limit: 3) == 3)
        #expect(try await store.purgeExpired(now: 500, limit: 3) == 2)
        #expect(try await store.purgeExpired(now: 500, limit: 3) == 0)
        #expect(try await store.load("live") != nil)
    }

    @Test("a corrupt file or an unusable directory is a clear error at start, never a crash")
    func badFiles() throws {
        let corrupt = temporaryPath()
        try FileManager.default.createDirectory(
            atPath: (corrupt as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: corrupt))
        do {
            _ = try SQLiteSessionStore(path: corrupt)
            Issue.record("a corrupt file must be refused")
        } catch {
            #expect(error.isUnavailable)
            #expect("\(error)".contains("cannot open the SQLite store at \(corrupt)"))
        }
        let blocker = temporaryPath()
        try FileManager.default.createDirectory(
            atPath: (blocker as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        #expect(throws: StoreError.self) { try SQLiteSessionStore(path: blocker + "/sessions.sqlite") }
    }

    /// The hang of issue 20: immediate reads that waited for one of GRDB's pooled readers, made
    /// on every cooperative thread, while async reads held the readers and needed a cooperative
    /// thread to give them back. Immediate reads now use each thread's own connection.
    @Test(
        "immediate reads on every cooperative thread never wait for the async reads' readers", .timeLimit(.minutes(1)))
    func immediateReadsBesideAsyncReads() async throws {
        let store = try SQLiteSessionStore(path: temporaryPath())
        for index in 0..<8 { try await store.create(record("s\(index)"), entries: [HistoryRecord(seq: 1, entry: [1])]) }
        let tasks = 32  // more async reads than GRDB has readers (5), more immediate ones than threads
        let (immediate, history) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var reads = (immediate: 0, history: 0)
                    for round in 0..<300 {
                        let id = "s\((task + round) % 8)"
                        if task % 2 == 0 {
                            if try store.loadImmediately(id) != nil, try store.stampImmediately(id) != nil {
                                reads.immediate += 1
                            }
                        } else if try await store.history(id, after: 0, limit: 20).count == 1 {
                            reads.history += 1
                        }
                    }
                    return reads
                }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        #expect(immediate == tasks / 2 * 300 && history == tasks / 2 * 300)
        // A commit is seen at once by the next immediate read on any thread.
        try await store.commit(record("s0", version: 2), expectedVersion: 1, entries: [])
        let seen = await Task.detached { try? store.stampImmediately("s0")?.version }.value
        #expect(seen == 2)
        #expect(try store.loadImmediately("s0")?.version == 2)
    }
}
