/// Sessions in memory: for tests, benchmarks and `--store memory`. Lost when the process ends.
public actor MemorySessionStore: SessionStore {
    private var sessions: [String: SessionRecord] = [:]
    private var histories: [String: [HistoryRecord]] = [:]

    /// An empty store.
    public init() {}

    /// The number of sessions held.
    public var count: Int { sessions.count }

    public func load(_ id: String) throws(StoreError) -> SessionRecord? { sessions[id] }

    public func create(_ record: SessionRecord, entries: [HistoryRecord]) throws(StoreError) {
        guard sessions[record.id] == nil else { throw .duplicate(session: record.id) }
        sessions[record.id] = record
        histories[record.id] = entries
    }

    public func commit(_ record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord]) throws(StoreError) {
        guard let current = sessions[record.id], current.version == expectedVersion else {
            throw .conflict(session: record.id, expected: expectedVersion, found: sessions[record.id]?.version)
        }
        sessions[record.id] = record
        histories[record.id, default: []].append(contentsOf: entries)
    }

    public func history(_ id: String, after: Int, limit: Int) throws(StoreError) -> [HistoryRecord] {
        guard let entries = histories[id] else { return [] }
        // Entries are appended in seq order: binary search for the first after `after`.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].seq <= after { low = middle + 1 } else { high = middle }
        }
        return Array(entries[low..<min(entries.count, low + max(0, limit))])
    }

    public func delete(_ id: String) throws(StoreError) {
        sessions[id] = nil
        histories[id] = nil
    }

    public func liveCount(now: Int64) throws(StoreError) -> Int {
        sessions.values.reduce(0) { $0 + ($1.expiresAt >= now ? 1 : 0) }
    }

    public func purgeExpired(now: Int64, limit: Int) throws(StoreError) -> Int {
        let expired = sessions.values.filter { $0.expiresAt < now }.prefix(limit).map(\.id)
        for id in expired { try delete(id) }
        return expired.count
    }
}
