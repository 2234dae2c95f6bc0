import FlowCore
import FlowStore
import Synchronization

/// Decoded trees of recently used sessions, by session id and version, so a request whose stored
/// record has not changed since this instance last decoded or committed it skips decoding.
///
/// Safe across instances: a session's version is committed once (optimistic concurrency), so an
/// id and version always name the same tree. Bounded: past `capacity` sessions, the oldest
/// entries are dropped first.
///
/// Shared by every thread. Pages that only show a session render from each thread's own copy
/// instead (see ``FastPagePath``).
final class DecodedSessionCache: Sendable {
    /// A decoded session.
    struct Decoded {
        var tree: NavigationTree
        var extra: SessionExtra
    }

    private struct Entry {
        var version: Int
        var decoded: Decoded
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Ids in insertion order (an id may appear more than once; only its last use counts).
        var order: [String] = []
        var orderStart = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The decoded session `id` at `version`: the cached copy, or made by `decode` (from the
    /// stored record) and kept.
    func decoded<Failure: Error>(_ id: String, version: Int, decode: () throws(Failure) -> Decoded) throws(Failure)
        -> Decoded
    {
        guard capacity > 0 else { return try decode() }
        if let shared = cached(id, version: version) { return shared }
        let made = try decode()
        storeShared(id, version: version, made)
        return made
    }

    /// The session `record` holds, its tree from this cache (decoded by `decoder` and kept when
    /// it is not cached).
    func session(from record: SessionRecord, decoder: StoredSessionDecoder) throws(WebError) -> LoadedSession {
        let decoded = try decoded(record.id, version: record.version) { () throws(WebError) in
            try decoder.decode(record)
        }
        return LoadedSession(record: record, tree: decoded.tree, extra: decoded.extra)
    }

    /// The decoded session `id` at `version`, if cached.
    func cached(_ id: String, version: Int) -> Decoded? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.version == version else { return nil }
            return entry.decoded
        }
    }

    /// The version of session `id` cached, the newest this instance read or committed; `nil`
    /// when it is not cached.
    func version(of id: String) -> Int? {
        state.withLock { $0.entries[id]?.version }
    }

    /// Keeps the decoded form of session `id` at `version` (a commit's).
    func store(_ id: String, version: Int, _ decoded: Decoded) {
        guard capacity > 0 else { return }
        storeShared(id, version: version, decoded)
    }

    private func storeShared(_ id: String, version: Int, _ decoded: Decoded) {
        state.withLock { state in
            if state.entries.updateValue(Entry(version: version, decoded: decoded), forKey: id) == nil {
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
