import Synchronization

/// Sessions in memory: for tests, benchmarks and `--store memory`. Lost when the process ends.
///
/// A lock, not an actor: every operation is a few dictionary accesses, and a request that finds
/// its session without switching threads is answered on the server's thread, without suspending
/// its connection.
public final class MemorySessionStore: ImmediateSessionLoading {
    /// One session: its record and its history in seq order. A class, so the table holds one
    /// reference per session (a dictionary keeps a quarter to a half of its slots empty).
    private final class Stored {
        var record: SessionRecord
        var history: [HistoryRecord]

        init(record: SessionRecord, history: [HistoryRecord]) {
            self.record = record
            self.history = history
        }
    }

    /// The sessions by id; ``Stored`` objects are only touched under this lock.
    private let sessions = Mutex<[String: Stored]>([:])

    /// An empty store.
    public init() {}

    /// The quarantined copies by session id, oldest version first.
    private let quarantine = Mutex<[String: [QuarantinedSession]]>([:])

    /// The secret kept for session ids, once proposed.
    private let secret = Mutex<[UInt8]?>(nil)

    /// The number of sessions held (not counting the markers of deleted ones).
    public var count: Int { sessions.withLock { $0.values.reduce(0) { $0 + ($1.record.isDeleted ? 0 : 1) } } }

    public func load(_ id: String) throws(StoreError) -> SessionRecord? { sessions.withLock { $0[id]?.record } }

    public func loadImmediately(_ id: String) throws(StoreError) -> SessionRecord? { try load(id) }

    /// Reads three numbers: copying the record would count references to its strings and
    /// arrays, memory that every thread reading the session writes.
    public func stampImmediately(_ id: String) throws(StoreError) -> SessionStamp? {
        sessions.withLock { sessions in
            guard let stored = sessions[id] else { return nil }
            return SessionStamp(
                version: stored.record.version, lastUsedAt: stored.record.lastUsedAt, expiresAt: stored.record.expiresAt
            )
        }
    }

    public func create(_ record: SessionRecord, entries: [HistoryRecord]) throws(StoreError) {
        try sessions.withLock { (sessions: inout [String: Stored]) throws(StoreError) in
            guard sessions[record.id] == nil else { throw .duplicate(session: record.id) }
            sessions[record.id] = Stored(record: record, history: entries)
        }
    }

    public func commit(_ record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord]) throws(StoreError) {
        try sessions.withLock { (sessions: inout [String: Stored]) throws(StoreError) in
            guard let stored = sessions[record.id], stored.record.version == expectedVersion else {
                throw .conflict(
                    session: record.id, expected: expectedVersion, found: sessions[record.id]?.record.version)
            }
            stored.record = record
            // Short histories (most) grow to fit; long ones by doubling, as growing to fit copies
            // the whole history on every step.
            if stored.history.count < 64 { stored.history.reserveCapacity(stored.history.count + entries.count) }
            let behind = entries.first.map { first in stored.history.last.map { $0.seq > first.seq } ?? false } ?? false
            stored.history.append(contentsOf: entries)
            // Entries older than those kept (a restored session's) keep the history in seq order.
            if behind { stored.history.sort { $0.seq < $1.seq } }
        }
    }

    public func history(_ id: String, after: Int, limit: Int) throws(StoreError) -> [HistoryRecord] {
        guard let entries = sessions.withLock({ $0[id]?.history }) else { return [] }
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
        sessions.withLock { $0[id] = nil }
    }

    public func dropHistory(_ id: String, before: Int) throws(StoreError) {
        sessions.withLock { sessions in
            guard let stored = sessions[id] else { return }
            let kept = stored.history.firstIndex { $0.seq >= before } ?? stored.history.endIndex
            if kept > 0 { stored.history.removeFirst(kept) }
        }
    }

    public func liveCount(now: Int64) throws(StoreError) -> Int {
        sessions.withLock { $0.values.reduce(0) { $0 + ($1.record.expiresAt >= now && !$1.record.isDeleted ? 1 : 0) } }
    }

    public func sessionSecret(proposing proposed: [UInt8]) throws(StoreError) -> [UInt8] {
        secret.withLock { kept in
            if kept == nil { kept = proposed }
            return kept!
        }
    }

    public func quarantine(_ session: QuarantinedSession) throws(StoreError) {
        quarantine.withLock { kept in
            var copies = kept[session.record.id, default: []]
            guard !copies.contains(where: { $0.record.version == session.record.version }) else { return }
            copies.append(session)
            copies.sort { $0.record.version < $1.record.version }
            kept[session.record.id] = copies
        }
    }

    /// Sorts the ids on every call: for tests and small stores.
    public func sessions(after id: String?, limit: Int) throws(StoreError) -> [SessionRecord] {
        let after = id ?? ""
        return sessions.withLock { sessions in
            let ids = sessions.keys.filter { $0 > after }.sorted().prefix(max(0, limit))
            return ids.compactMap { sessions[$0]?.record }
        }
    }

    public func quarantined(_ id: String) throws(StoreError) -> [QuarantinedSession] {
        quarantine.withLock { $0[id] ?? [] }
    }

    public func purgeExpired(now: Int64, limit: Int) throws(StoreError) -> Int {
        quarantine.withLock { kept in
            kept = kept.compactMapValues { copies in
                let live = copies.filter { $0.expiresAt >= now }
                return live.isEmpty ? nil : live
            }
        }
        return sessions.withLock { sessions in
            let expired = sessions.values.filter { $0.record.expiresAt < now }.prefix(limit).map(\.record.id)
            for id in expired { sessions[id] = nil }
            return expired.count
        }
    }
}
