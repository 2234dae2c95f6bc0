import Synchronization

/// The long trees this store wrote last, by session: what lets a commit find the pieces that
/// changed in memory (`memcmp`) instead of sending every piece to SQLite to compare
/// (``TreeChunks/write(_:of:unchangedFrom:in:)``).
///
/// An entry names the version and creation time it was written at; a commit uses it only when it
/// expects exactly that version of a session created at that time, so a change made by another
/// instance (a newer version) or a session started again under its id (another creation time)
/// is written whole. Entries share their bytes with the records committed, and at most
/// ``budget`` bytes are kept: the oldest go first.
final class WrittenTrees: Sendable {
    /// A tree as written.
    private struct Entry {
        let version: Int
        let createdAt: Int64
        let tree: [UInt8]
        /// When it was written, counted in writes: its place in ``Table/order``.
        let serial: Int
    }

    private struct Table {
        var entries: [String: Entry] = [:]
        /// Each write's session and serial, the oldest first; a place whose entry was written
        /// again since (another serial) or forgotten is passed over.
        var order: [(id: String, serial: Int)] = []
        var oldest = 0
        var serial = 0
        var bytes = 0
    }

    /// The most bytes of trees kept.
    let budget: Int
    private let table = Mutex(Table())

    /// A record of at most `budget` bytes of trees.
    init(budget: Int = 8 << 20) {
        self.budget = budget
    }

    /// The tree written for session `id` at `version`, when it was created at `createdAt`.
    func tree(of id: String, version: Int, createdAt: Int64) -> [UInt8]? {
        table.withLock { table in
            guard let entry = table.entries[id], entry.version == version, entry.createdAt == createdAt else {
                return nil
            }
            return entry.tree
        }
    }

    /// Records that `tree` is stored for session `id` at `version`. Only trees in pieces are kept.
    func wrote(_ tree: [UInt8], of id: String, version: Int, createdAt: Int64) {
        guard tree.count > TreeChunks.size, tree.count <= budget else { return forget(id) }
        table.withLock { table in
            table.serial += 1
            let replaced = table.entries.updateValue(
                Entry(version: version, createdAt: createdAt, tree: tree, serial: table.serial), forKey: id)
            table.bytes += tree.count - (replaced?.tree.count ?? 0)
            table.order.append((id, table.serial))
            while table.bytes > budget, table.oldest < table.order.count {
                let (oldest, serial) = table.order[table.oldest]
                table.oldest += 1
                if table.entries[oldest]?.serial == serial, let removed = table.entries.removeValue(forKey: oldest) {
                    table.bytes -= removed.tree.count
                }
            }
            // Places passed over, and those of sessions written again since, go once they are
            // most of the list: it stays within twice the entries.
            if table.order.count > 2 * table.entries.count + 64 {
                table.order = table.order[table.oldest...].filter { table.entries[$0.id]?.serial == $0.serial }
                table.oldest = 0
            }
        }
    }

    /// Forgets what was written for session `id` (its commit failed, or it ended).
    func forget(_ id: String) {
        table.withLock { table in
            if let removed = table.entries.removeValue(forKey: id) { table.bytes -= removed.tree.count }
        }
    }
}
