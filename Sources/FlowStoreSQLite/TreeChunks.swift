import FlowStore
import Foundation
import GRDB

/// How the SQLite store keeps a session's tree, so that a commit writes what changed rather than
/// the whole tree: the session's row holds the tree's first ``size`` bytes, the table
/// `tree_chunks` the rest, in pieces of ``size`` bytes numbered from 1. A commit writes a piece
/// only when its bytes differ from the stored ones, so a step on a session of a thousand pages
/// writes the row and the pieces from the change on, not 50 KB (Benchmarks/README.md, issue 41).
///
/// A tree no longer than ``size`` bytes has no pieces. The row of a tree stored by a build before
/// the pieces (schema v3) holds the whole tree, longer than ``size``: it is read as it is, and its
/// next commit stores it in pieces. So only a row whose tree is exactly ``size`` bytes long has its
/// pieces looked for.
enum TreeChunks {
    /// The length of the row's part and of each piece: a piece's row stays within one of
    /// SQLite's 4 KB pages, so writing a piece writes one page.
    static let size = 3_584

    /// The schema of the pieces (migration v4).
    static let schema = """
        CREATE TABLE tree_chunks (
            session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            bytes BLOB NOT NULL,
            PRIMARY KEY (session, idx)
        );
        """

    /// The part of `tree` the session's row holds.
    static func head(of tree: [UInt8]) -> Data {
        Data(tree.prefix(size))
    }

    /// Whether a row's tree part of `headLength` bytes may go on in pieces.
    static func mayContinue(headLength: Int) -> Bool {
        headLength == size
    }

    /// Stores the pieces of `tree` after its head for session `id`, writing only those whose
    /// bytes changed, and drops the pieces past its end. Inside the commit's transaction. A tree
    /// shorter than the head writes nothing: its old pieces, if any, are never read (see
    /// ``mayContinue(headLength:)``) and go when the tree grows again or the session ends.
    ///
    /// `stored`, when given, is the tree the session's rows hold now, as this store wrote it
    /// (``WrittenTrees``): the pieces whose bytes it has too are not sent to SQLite at all.
    static func write(_ tree: [UInt8], of id: String, unchangedFrom stored: [UInt8]? = nil, in db: Database) throws {
        guard tree.count >= size else { return }
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO tree_chunks (session, idx, bytes) VALUES (?, ?, ?)
                ON CONFLICT (session, idx) DO UPDATE SET bytes = excluded.bytes WHERE bytes IS NOT excluded.bytes
                """)
        var index = 1
        var start = size
        while start < tree.count {
            let end = min(start + size, tree.count)
            let unchanged =
                stored.map { min(start + size, $0.count) == end && sameBytes(tree, $0, in: start..<end) } ?? false
            if !unchanged { try upsert.execute(arguments: [id, index, Data(tree[start..<end])]) }
            index += 1
            start = end
        }
        // The rows hold exactly the stored tree's pieces: none to drop when it had no more.
        if let stored, stored.count > size, (stored.count - 1) / size < index { return }
        try db.cachedStatement(sql: "DELETE FROM tree_chunks WHERE session = ? AND idx >= ?")
            .execute(arguments: [id, index])
    }

    /// Whether `a` and `b` hold the same bytes in `range` (within both), compared as memory: a
    /// byte-by-byte loop over the pieces of a long tree was a tenth of a step's time.
    private static func sameBytes(_ a: [UInt8], _ b: [UInt8], in range: Range<Int>) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                memcmp(a.baseAddress! + range.lowerBound, b.baseAddress! + range.lowerBound, range.count) == 0
            }
        }
    }

    /// `record`, whose tree is its row's head, with its whole tree. Inside one snapshot of the
    /// database.
    static func whole(_ record: SessionRecord, in db: Database) throws -> SessionRecord {
        guard mayContinue(headLength: record.tree.count) else { return record }
        var record = record
        record.tree += try rest(of: record.id, in: db)
        return record
    }

    /// The pieces of session `id`'s tree after its head, in order, joined.
    private static func rest(of id: String, in db: Database) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT bytes FROM tree_chunks WHERE session = ? ORDER BY idx"), arguments: [id])
        while let row = try rows.next() { bytes += row[0] as Data }
        return bytes
    }
}
