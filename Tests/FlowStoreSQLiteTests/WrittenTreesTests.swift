import FlowStore
import Foundation
import GRDB
import Testing

@testable import FlowStoreSQLite

private let piece = TreeChunks.size

/// A session record of `tree`.
private func record(_ id: String, version: Int, tree: [UInt8], createdAt: Int64 = 1_000) -> SessionRecord {
    SessionRecord(
        id: id, version: version, tree: tree, appData: [1], csrfToken: "token", lastSeq: 0, extra: [2],
        createdAt: createdAt, lastUsedAt: 1_000, expiresAt: 100_000)
}

/// A tree of `pieces` pieces after the row's part, each piece's bytes `fill` unless changed.
private func tree(pieces: Int, fill: UInt8 = 1) -> [UInt8] {
    [UInt8](repeating: fill, count: piece * (pieces + 1))
}

/// `tree` with the bytes of piece `index` (1 the first after the row's part) set to `value`.
private func changing(_ tree: [UInt8], piece index: Int, to value: UInt8) -> [UInt8] {
    var tree = tree
    for position in piece * index..<min(piece * (index + 1), tree.count) { tree[position] = value }
    return tree
}

private func databasePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
        "flowserver-written-\(UUID().uuidString)/sessions.sqlite"
    ).path
}

/// Statements seen by a trace, which runs on the thread of the write that traces.
private final class StatementCount: @unchecked Sendable {
    var count = 0
}

@Suite("SQLite: a commit sends only the pieces that changed")
struct WrittenTreesTests {
    @Test("given the stored tree, only the pieces that differ reach SQLite, and the result is the same")
    func sendsChangedPieces() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE sessions (id TEXT PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO sessions VALUES ('s')")
            try db.execute(sql: TreeChunks.schema)
        }
        /// Writes `new` over `stored` and answers how many pieces were sent, and what is stored.
        func write(_ new: [UInt8], over stored: [UInt8]?) throws -> (sent: Int, rest: [UInt8]) {
            try queue.write { db in
                let upserts = StatementCount()
                db.trace(options: .statement) { event in
                    if "\(event)".hasPrefix("INSERT INTO tree_chunks") { upserts.count += 1 }
                }
                defer { db.trace(options: [], nil) }
                try TreeChunks.write(new, of: "s", unchangedFrom: stored, in: db)
                let rest = try Data.fetchAll(db, sql: "SELECT bytes FROM tree_chunks WHERE session = 's' ORDER BY idx")
                return (upserts.count, rest.flatMap { [UInt8]($0) })
            }
        }
        let first = tree(pieces: 6)
        #expect(try write(first, over: nil) == (6, Array(first[piece...])), "unknown: every piece")
        let second = changing(first, piece: 4, to: 9)
        #expect(try write(second, over: first) == (1, Array(second[piece...])), "one piece changed")
        #expect(try write(second, over: second).sent == 0, "nothing changed")
        // Shorter: the last piece ends earlier, and the pieces after it go.
        let shorter = Array(second[..<(piece * 3 + 100)])
        #expect(try write(shorter, over: second) == (1, Array(shorter[piece...])))
        // Longer again: the cut piece and the new ones.
        #expect(try write(second, over: shorter) == (4, Array(second[piece...])))
    }

    @Test(
        "a store trusts its record of a tree only for the version and creation it wrote: another writer's change, or a session started again, is written whole"
    )
    func trustsOnlyItsOwnVersion() async throws {
        let path = databasePath()
        let first = try SQLiteSessionStore(path: path)
        let second = try SQLiteSessionStore(path: path)
        let original = tree(pieces: 5)
        try await first.create(record("s", version: 1, tree: original), entries: [])
        let mine = changing(original, piece: 5, to: 2)
        try await first.commit(record("s", version: 2, tree: mine), expectedVersion: 1, entries: [])
        // Another instance changes piece 3; the first one, having read that version, puts piece
        // 3 back as it wrote it at version 2, which its record of version 2 would call unchanged.
        let theirs = changing(mine, piece: 3, to: 7)
        try await second.commit(record("s", version: 3, tree: theirs), expectedVersion: 2, entries: [])
        let back = changing(theirs, piece: 3, to: 1)
        #expect(back == mine)
        try await first.commit(record("s", version: 4, tree: back), expectedVersion: 3, entries: [])
        #expect(try await second.load("s")?.tree == back)

        // A session deleted and started again under its id, at the version the first store
        // wrote last, with another creation time.
        try await second.delete("s")
        let restarted = changing(original, piece: 2, to: 5)
        try await second.create(record("s", version: 4, tree: restarted, createdAt: 2_000), entries: [])
        let edited = changing(restarted, piece: 2, to: 1)  // piece 2 as the first store wrote it
        try await first.commit(record("s", version: 5, tree: edited, createdAt: 2_000), expectedVersion: 4, entries: [])
        #expect(try await second.load("s")?.tree == edited)

        // A commit refused for its version leaves nothing trusted behind.
        await #expect(throws: StoreError.self) {
            try await first.commit(
                record("s", version: 6, tree: original, createdAt: 2_000), expectedVersion: 4, entries: [])
        }
        #expect(try await first.load("s")?.tree == edited)
    }

    @Test("the record keeps at most its budget of bytes, the oldest trees going first, and only trees in pieces")
    func keepsItsBudget() {
        let written = WrittenTrees(budget: 3 * piece * 3)
        let long = tree(pieces: 2)  // 3 pieces' worth of bytes
        /// Whether `long` is what the record has for session `id` at `version`, created at `createdAt`.
        func keeps(_ id: String, _ version: Int, createdAt: Int64 = 1) -> Bool {
            written.tree(of: id, version: version, createdAt: createdAt) == long
        }
        written.wrote(long, of: "a", version: 1, createdAt: 1)
        written.wrote(long, of: "b", version: 1, createdAt: 1)
        written.wrote(long, of: "c", version: 1, createdAt: 1)
        #expect(keeps("a", 1) && !keeps("a", 2) && !keeps("a", 1, createdAt: 2))
        written.wrote(long, of: "a", version: 2, createdAt: 1)  // a again: b is now the oldest
        written.wrote(long, of: "d", version: 1, createdAt: 1)
        #expect(!keeps("b", 1) && keeps("a", 2) && keeps("c", 1) && keeps("d", 1))
        written.wrote([1, 2, 3], of: "d", version: 2, createdAt: 1)  // short: not kept, the long one forgotten
        #expect(!keeps("d", 1) && written.tree(of: "d", version: 2, createdAt: 1) == nil)
        // Writing the same sessions again and again keeps the record's list bounded.
        for version in 3..<2_000 { written.wrote(long, of: "a", version: version, createdAt: 1) }
        #expect(keeps("a", 1_999) && keeps("c", 1))
    }
}
