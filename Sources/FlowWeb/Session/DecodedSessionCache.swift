import FlowCore
import Synchronization

/// Decoded trees of recently used sessions, by session id and version, so a request whose stored
/// record has not changed since this instance last decoded or committed it skips decoding.
///
/// Safe across instances: a session's version is committed once (optimistic concurrency), so an
/// id and version always name the same tree. Bounded: past `capacity` sessions, the oldest
/// entries are dropped first.
final class DecodedSessionCache: Sendable {
    private struct Entry {
        var version: Int
        var tree: NavigationTree
        var extra: SessionExtra
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Ids in insertion order (an id may appear more than once; only its last use counts).
        var order: [String] = []
        var orderStart = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The decoded tree and bookkeeping of session `id` at `version`, if cached.
    func lookup(_ id: String, version: Int) -> (tree: NavigationTree, extra: SessionExtra)? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.version == version else { return nil }
            return (entry.tree, entry.extra)
        }
    }

    /// The version of session `id` cached, the newest this instance read or committed; `nil`
    /// when it is not cached.
    func version(of id: String) -> Int? {
        state.withLock { $0.entries[id]?.version }
    }

    /// Keeps the decoded form of session `id` at `version`.
    func store(_ id: String, version: Int, tree: NavigationTree, extra: SessionExtra) {
        guard capacity > 0 else { return }
        state.withLock { state in
            if state.entries.updateValue(Entry(version: version, tree: tree, extra: extra), forKey: id) == nil {
                state.order.append(id)
            }
            while state.entries.count > capacity, state.orderStart < state.order.count {
                state.entries[state.order[state.orderStart]] = nil
                state.orderStart += 1
            }
            if state.orderStart > 4096, state.orderStart * 2 > state.order.count {
                state.order.removeFirst(state.orderStart)
                state.orderStart = 0
            }
        }
    }

    /// Forgets session `id`.
    func remove(_ id: String) {
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }
}
