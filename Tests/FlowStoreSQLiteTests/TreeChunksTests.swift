import FlowStore
import FlowStoreSQLite
import Foundation
import GRDB
import Testing

/// A session whose tree is `length` bytes, each telling `version` and its position apart.
private func session(_ id: String, version: Int, length: Int, lastSeq: Int = 0) -> SessionRecord {
    let tree = (0..<length).map { UInt8(truncatingIfNeeded: ($0 / 7) &+ version &* 31) }
    return SessionRecord(
        id: id, version: version, tree: tree, appData: [1], csrfToken: "token", lastSeq: lastSeq, extra: [2],
        createdAt: 1_000, lastUsedAt: 1_000, expiresAt: 100_000)
}

private func databasePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
        "flowserver-chunks-\(UUID().uuidString)/sessions.sqlite"
    ).path
}

/// The size of the write-ahead log, in frames of a 4 KB page.
private func walFrames(_ path: String) throws -> Int {
    let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
    return max(0, size - 32) / (4096 + 24)
}

@Suite("SQLite: trees stored in pieces")
struct TreeChunksTests {
    @Test(
        "trees of every length round-trip through create, commit, each kind of read and the listing, growing and shrinking across the pieces' boundaries"
    )
    func roundTrips() async throws {
        let store = try SQLiteSessionStore(path: databasePath())
        let piece = 3_584
        let lengths = [10, piece - 1, piece, piece + 1, 5 * piece, 5 * piece + 17, 2 * piece, piece, 100, 3 * piece]
        try await store.create(session("s", version: 1, length: lengths[0]), entries: [])
        for (index, length) in lengths.enumerated() {
            let version = index + 1
            let expected = session("s", version: version, length: length)
            if index > 0 { try await store.commit(expected, expectedVersion: version - 1, entries: []) }
            #expect(try await store.load("s") == expected, "\(length) bytes")
            #expect(try store.loadImmediately("s") == expected, "\(length) bytes, read on the calling thread")
            guard case .changed(let changed) = try await store.load("s", unlessAt: version - 1) else {
                Issue.record("a new version reads as changed")
                return
            }
            #expect(changed == expected)
            #expect(try await store.sessions(after: nil, limit: 10) == [expected])
        }
        // A session created long goes in pieces from the start; deleting it takes its pieces.
        try await store.create(session("long", version: 1, length: 4 * piece + 5), entries: [])
        #expect(try await store.load("long") == session("long", version: 1, length: 4 * piece + 5))
        #expect(try await store.sessions(after: nil, limit: 10).map(\.tree.count) == [4 * piece + 5, 3 * piece])
        try await store.delete("long")
        #expect(try await store.load("long") == nil)
        try await store.create(session("long", version: 1, length: piece), entries: [])
        #expect(try await store.load("long") == session("long", version: 1, length: piece), "no piece left over")
    }

    @Test("a commit that changes the end of a long tree writes a few pages, not the whole tree")
    func writesWhatChanged() async throws {
        let path = databasePath()
        // The log is not copied meanwhile (the store's services do not run), so it grows by what
        // each commit writes.
        let store = try SQLiteSessionStore(path: path)
        var record = session("big", version: 1, length: 60_000)
        try await store.create(record, entries: [])
        let before = try walFrames(path)
        record.version = 2
        record.tree[59_990] &+= 1
        try await store.commit(record, expectedVersion: 1, entries: [HistoryRecord(seq: 1, entry: [1])])
        let tailChange = try walFrames(path) - before
        #expect(tailChange <= 5, "the row, one piece, the history: \(tailChange) pages")
        #expect(try await store.load("big") == record)

        // A change at the start shifts nothing either; one that shifts every byte after it
        // rewrites every piece after it.
        let shifted = try walFrames(path)
        record.version = 3
        record.tree.insert(7, at: 10)
        try await store.commit(record, expectedVersion: 2, entries: [])
        #expect(try walFrames(path) - shifted >= 60_000 / 4096, "a shifted tree is written whole")
        #expect(try await store.load("big") == record)
    }

    @Test("a row stored before trees went in pieces is read whole, and its next commit stores it in pieces")
    func rowsFromBefore() async throws {
        let path = databasePath()
        let store = try SQLiteSessionStore(path: path)
        let old = session("old", version: 1, length: 20_000)
        try await store.create(old, entries: [])
        // As schema v3 kept it: the whole tree in the row, no pieces.
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "UPDATE sessions SET tree = ? WHERE id = 'old'", arguments: [Data(old.tree)])
            try db.execute(sql: "DELETE FROM tree_chunks WHERE session = 'old'")
        }
        #expect(try await store.load("old") == old)
        #expect(try store.loadImmediately("old") == old)
        let next = session("old", version: 2, length: 21_000)
        try await store.commit(next, expectedVersion: 1, entries: [])
        #expect(try await store.load("old") == next)
        let pieces = try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tree_chunks WHERE session = 'old'")
        }
        #expect(pieces == 5, "21,000 bytes: the row's 3,584 and five pieces")
    }

    @Test("reads while commits change a long tree see one commit's tree whole, never two commits' pieces mixed")
    func readsDuringCommits() async throws {
        let store = try SQLiteSessionStore(path: databasePath())
        let lengths = [30_000, 9_000, 3_584, 45_000, 12_345]
        try await store.create(session("busy", version: 1, length: lengths[0]), entries: [])
        let commits = 120
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for version in 2...commits {
                    let next = session("busy", version: version, length: lengths[version % lengths.count])
                    try await store.commit(next, expectedVersion: version - 1, entries: [])
                }
                return 0
            }
            for reader in 0..<3 {
                group.addTask {
                    var checked = 0
                    var last = 0
                    while last < commits {
                        let read = reader == 0 ? try store.loadImmediately("busy") : try await store.load("busy")
                        let seen = try #require(read)
                        #expect(seen == session("busy", version: seen.version, length: seen.tree.count))
                        #expect(seen.tree.count == lengths[seen.version % lengths.count] || seen.version == 1)
                        last = seen.version
                        checked += 1
                        // Not a busy loop: the suite runs beside timing-sensitive tests.
                        try await Task.sleep(for: .milliseconds(1))
                    }
                    return checked
                }
            }
            var reads = 0
            for try await checked in group { reads += checked }
            #expect(reads > 3)
        }
    }

    @Test("a database a newer FlowServer migrated further is refused with a clear error")
    func newerSchema() async throws {
        let path = databasePath()
        _ = try SQLiteSessionStore(path: path)
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        do {
            _ = try SQLiteSessionStore(path: path)
            Issue.record("a newer schema must be refused")
        } catch {
            #expect(error.isUnavailable)
            #expect("\(error)".contains("a newer FlowServer migrated it"))
        }
    }
}
