import FlowCore
import Synchronization

/// Decoded trees of recently used sessions, by session id and version, so a request whose stored
/// record has not changed since this instance last decoded or committed it skips decoding.
///
/// Safe across instances: a session's version is committed once (optimistic concurrency), so an
/// id and version always name the same tree. Bounded: past `capacity` sessions, the oldest
/// entries are dropped first.
///
/// Two levels. The shared table serves every thread. In front of it, for pages that only show
/// a session, each thread keeps trees of its own: a tree is a value, but its nodes' storage is shared by every copy, and two cores
/// that read one tree write the same reference counts, passing their memory back and forth on
/// every page (a third of a page's time with two threads). So a thread that reads a session's
/// version a second time decodes a private copy from the record, once, and reads that from then
/// on. A version read once per thread (the page after a step) costs no extra decoding; a version
/// a thread decoded itself is its own at once.
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

    /// One thread's trees; `isPrivate` is false for a tree taken from the shared table, which
    /// the thread replaces with its own copy when it reads that version again.
    private final class ThreadTable {
        var entries: [String: (version: Int, decoded: Decoded, isPrivate: Bool)] = [:]
    }

    private let state = Mutex(State())
    private let threadTables = PerThread { ThreadTable() }
    let capacity: Int
    /// Sessions a thread's table holds before it starts over: a quarter of the shared capacity,
    /// since a thread shows a share of the sessions.
    private let threadCapacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        threadCapacity = max(capacity / 4, 16)
    }

    /// The decoded session `id` at `version`: the shared copy, or made by `decode` (from the
    /// stored record) and kept. With `forReading` (a page that only shows the session, read again
    /// and again), this thread's own copy, made on its second read; requests that change the
    /// session leave the thread tables alone (their tree is copied as it changes anyway, and a
    /// busy session's requests would each decode it again).
    func decoded<Failure: Error>(
        _ id: String, version: Int, forReading: Bool, decode: () throws(Failure) -> Decoded
    ) throws(Failure) -> Decoded {
        guard capacity > 0 else { return try decode() }
        guard forReading else {
            if let shared = lookup(id, version: version) { return shared }
            let made = try decode()
            storeShared(id, version: version, made)
            return made
        }
        let table = threadTables.current
        if let own = table.entries[id], own.version == version {
            if own.isPrivate { return own.decoded }
            let copy = try decode()
            keep(copy, id, version, isPrivate: true, in: table)
            return copy
        }
        if let shared = lookup(id, version: version) {
            keep(shared, id, version, isPrivate: false, in: table)
            return shared
        }
        let made = try decode()
        keep(made, id, version, isPrivate: true, in: table)
        storeShared(id, version: version, made)
        return made
    }

    /// The shared decoded session `id` at `version`, if cached.
    private func lookup(_ id: String, version: Int) -> Decoded? {
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

    /// Keeps the decoded form of session `id` at `version` (a commit's): in the shared table
    /// only, since the thread that committed is seldom the one that shows the next page.
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

    /// Forgets session `id` (other threads' own copies stay until they are pushed out: they
    /// are only found for a version the store still holds).
    func remove(_ id: String) {
        threadTables.current.entries[id] = nil
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    /// Puts a session in a thread's table; a full table starts over.
    private func keep(_ decoded: Decoded, _ id: String, _ version: Int, isPrivate: Bool, in table: ThreadTable) {
        if table.entries.count >= threadCapacity, table.entries[id] == nil { table.entries.removeAll(keepingCapacity: true) }
        table.entries[id] = (version, decoded, isPrivate)
    }
}
