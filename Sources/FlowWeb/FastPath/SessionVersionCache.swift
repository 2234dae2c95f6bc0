/// Values derived from one version of a session, kept per thread by session and version: a
/// page shown again and again (a reload, a polled page, a busy session) derives them once per
/// version on each thread. The page path keeps each session's ``ShownSession`` here.
///
/// Per thread, so that reading a value writes no memory another core writes (see
/// ``PerThread``). Bounded: a full table starts over. A session's new version replaces its entry; a deleted
/// session's entry stays until pushed out, and is found only for a version the store still
/// returns.
final class SessionVersionCache<Value: Sendable>: Sendable {
    private final class Table {
        var entries: [String: (version: Int, value: Value)] = [:]
    }

    private let tables = PerThread { Table() }
    /// The most sessions a thread keeps.
    let capacity: Int

    /// A cache that keeps up to `capacity` sessions' values per thread.
    init(capacity: Int = 1024) { self.capacity = capacity }

    /// The value of version `version` of session `id`, if this thread keeps it.
    func kept(_ id: String, version: Int) -> Value? {
        tables.current.entries[id].flatMap { $0.version == version ? $0.value : nil }
    }

    /// The value of version `version` of session `id`, made by `make` when this thread has not
    /// kept it.
    func value<Failure: Error>(_ id: String, version: Int, make: () throws(Failure) -> Value) throws(Failure) -> Value {
        let table = tables.current
        if let kept = table.entries[id], kept.version == version { return kept.value }
        let value = try make()
        guard capacity > 0 else { return value }
        if table.entries.count >= capacity, table.entries[id] == nil { table.entries.removeAll(keepingCapacity: true) }
        table.entries[id] = (version, value)
        return value
    }
}
