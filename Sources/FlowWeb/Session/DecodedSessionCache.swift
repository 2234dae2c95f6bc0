import FlowCore
import FlowStore
import Synchronization

/// Decoded trees of recently used sessions, by session id and version, so a request whose stored
/// record has not changed since this instance last decoded or committed it skips decoding; with
/// each, the record it came from, so a change waiting for a session's lock starts from the newest
/// copy this instance has (see ``latest(_:)``).
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
        /// The tree as this instance last committed it, if it did (see ``LoadedSession/encoded``).
        var encoded: EncodedTree? = nil
        /// The root's State as this instance last answered it (see ``LoadedSession/encodedState``).
        var encodedState: EncodedTree? = nil
        /// The stored bytes as migrated, when an earlier version of the app stored them.
        var migrated: Migrated? = nil

        /// The session read from `record` (its bytes replaced by the migrated ones, if any).
        func session(from record: SessionRecord) -> LoadedSession {
            var record = record
            if let migrated {
                record.tree = migrated.tree
                record.appData = migrated.appData
                record.extra = migrated.extra
            }
            return LoadedSession(record: record, tree: tree, encoded: encoded, encodedState: encodedState, extra: extra)
        }
    }

    /// A stored session's bytes migrated to this build's level (see ``SessionMigration``).
    struct Migrated {
        var tree: [UInt8]
        var appData: [UInt8]
        var extra: [UInt8]
    }

    private struct Entry {
        var record: SessionRecord
        var decoded: Decoded
        var version: Int { record.version }
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

    /// The decoded session `record` holds: the cached copy of its id and version, or made by
    /// `decode` and kept with the record.
    func decoded<Failure: Error>(_ record: SessionRecord, decode: () throws(Failure) -> Decoded) throws(Failure)
        -> Decoded
    {
        guard capacity > 0 else { return try decode() }
        if let shared = cached(record.id, version: record.version) { return shared }
        let made = try decode()
        keep(Entry(record: record, decoded: made), overNewer: false)
        return made
    }

    /// The session `record` holds, its tree from this cache (decoded by `decoder` and kept when
    /// it is not cached).
    func session(from record: SessionRecord, decoder: StoredSessionDecoder) throws(UnreadableSession) -> LoadedSession {
        try decoded(record) { () throws(UnreadableSession) in try decoder.decode(record) }.session(from: record)
    }

    /// The session `record` holds, or the newer copy of it this instance committed or read
    /// since (the store had that version when it was cached: it is as fresh as the record and
    /// fresher); its tree from this cache as in ``session(from:decoder:)``. A read that raced one
    /// of this instance's commits then skips decoding the version the commit replaced.
    func freshest(from record: SessionRecord, decoder: StoredSessionDecoder) throws(UnreadableSession)
        -> LoadedSession
    {
        let kept = state.withLock { state in
            state.entries[record.id].flatMap { $0.version >= record.version ? $0 : nil }
        }
        if let kept, kept.version > record.version { return kept.decoded.session(from: kept.record) }
        if let kept { return kept.decoded.session(from: record) }
        return try session(from: record, decoder: decoder)
    }

    /// The newest copy of session `id` this instance read or committed, if cached. It was the
    /// stored session when read or committed; another instance may have committed since.
    func latest(_ id: String) -> LoadedSession? {
        state.withLock { state in
            state.entries[id].map { $0.decoded.session(from: $0.record) }
        }
    }

    /// The decoded session `id` at `version`, if cached.
    func cached(_ id: String, version: Int) -> Decoded? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.version == version else { return nil }
            return entry.decoded
        }
    }

    /// Keeps `session` as just committed: the stored version now, whatever was kept before.
    /// A State it holds none of is the one kept before, if any (any earlier State of the session
    /// is one to copy from).
    func store(_ session: LoadedSession) {
        guard capacity > 0 else { return }
        let id = session.record.id
        let encodedState = session.encodedState ?? keptState(of: id)
        keep(
            Entry(
                record: session.record,
                decoded: Decoded(
                    tree: session.tree, extra: session.extra, encoded: session.encoded, encodedState: encodedState)),
            overNewer: true)
    }

    /// The State kept with session `id`, of whatever version (see ``LoadedSession/encodedState``).
    func keptState(of id: String) -> EncodedTree? {
        state.withLock { $0.entries[id]?.decoded.encodedState }
    }

    /// Keeps `state`, the State written of session `id` at `version`, with that version when it
    /// is the one kept.
    func keepState(_ encoded: EncodedTree, of id: String, version: Int) {
        state.withLock { state in
            guard state.entries[id]?.version == version else { return }
            state.entries[id]?.decoded.encodedState = encoded
        }
    }

    /// Keeps `entry`; one read from the store does not replace a newer version of its session
    /// (a request that read before another committed would keep an older copy).
    private func keep(_ entry: Entry, overNewer: Bool) {
        let id = entry.record.id
        state.withLock { state in
            if !overNewer, let kept = state.entries[id], kept.version > entry.version { return }
            if state.entries.updateValue(entry, forKey: id) == nil {
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
