import ServiceLifecycle

/// Where sessions live between requests: a snapshot per session plus its append-only history.
///
/// Stores keep bytes (the tree and app data are encoded by the web layer), so the SQLite and
/// PostgreSQL stores need no knowledge of an app's flows. A commit succeeds only if the session
/// still has the version the caller read (optimistic concurrency): two writers never both win.
///
/// ```swift
/// let store: any SessionStore = MemorySessionStore()
/// try await store.create(record, entries: [startEntry])
/// var next = record; next.version += 1
/// try await store.commit(next, expectedVersion: record.version, entries: [entry])
/// ```
public protocol SessionStore: Sendable {
    /// The session `id`, or `nil` when there is none (never created, deleted, or purged).
    func load(_ id: String) async throws(StoreError) -> SessionRecord?
    /// The session `id` unless it is still at `version`, the version of a copy the caller holds:
    /// then only that is learnt, and the session's contents are not read. The default loads it.
    func load(_ id: String, unlessAt version: Int) async throws(StoreError) -> SessionReading
    /// Stores a new session with its first history entries.
    func create(_ record: SessionRecord, entries: [HistoryRecord]) async throws(StoreError)
    /// Replaces the session by `record` and appends `entries`, only if the stored version is
    /// `expectedVersion`; otherwise throws `StoreError` with `isConflict` set.
    func commit(_ record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord]) async throws(StoreError)
    /// History entries with `seq > after`, in order, at most `limit`.
    func history(_ id: String, after: Int, limit: Int) async throws(StoreError) -> [HistoryRecord]
    /// Deletes the session and its history.
    func delete(_ id: String) async throws(StoreError)
    /// Deletes the history entries of session `id` with `seq < before` (history retention: the
    /// web layer folds the oldest entries into a snapshot kept by entry `before`). Deleting
    /// entries already gone is no error.
    func dropHistory(_ id: String, before: Int) async throws(StoreError)
    /// Deletes up to `limit` sessions that expired before `now` (milliseconds since 1970), and
    /// up to `limit` quarantined copies that expired (see ``quarantine(_:)``); returns how many
    /// sessions.
    func purgeExpired(now: Int64, limit: Int) async throws(StoreError) -> Int
    /// Keeps `session`, a stored session the app can no longer read, until its `expiresAt`
    /// (see ``QuarantinedSession``); a copy of the same session and version kept already stays as
    /// it is. The session itself is left as it is.
    func quarantine(_ session: QuarantinedSession) async throws(StoreError)
    /// The quarantined copies of session `id` not purged yet, oldest version first.
    func quarantined(_ id: String) async throws(StoreError) -> [QuarantinedSession]
    /// The stored sessions whose ids come after `id` (from the first when `nil`), in id order, at
    /// most `limit`: for reading every session a page at a time (a deploy check), in bounded
    /// memory. Expired sessions not purged yet and the markers of deleted ones are included.
    func sessions(after id: String?, limit: Int) async throws(StoreError) -> [SessionRecord]
    /// How many sessions have not expired at `now` (for the live-sessions metric); the markers
    /// of deleted sessions (`SessionRecord.isDeleted`) do not count.
    func liveCount(now: Int64) async throws(StoreError) -> Int
    /// The secret that session ids are signed with: the one the store keeps, or, when it keeps
    /// none yet, `proposed`, kept from now on. So every instance on one database signs alike,
    /// and ids outlive a restart.
    func sessionSecret(proposing proposed: [UInt8]) async throws(StoreError) -> [UInt8]
    /// Whether other processes (instances) may change the sessions too: then each instance asks
    /// for the versions of the sessions it streams changes of (see `versions(of:)`).
    var isShared: Bool { get }
    /// The stored version of each of `ids` that is stored.
    func versions(of ids: [String]) async throws(StoreError) -> [String: Int]
    /// Reads session `id` (`nil`: none), hands it to `change`, and commits the record and
    /// entries `change` returns, if any, with no other writer's commit in between: on a shared
    /// store the session stays locked meanwhile (PostgreSQL: `SELECT … FOR UPDATE`), and writers
    /// waiting for it go in turn. For the retry after a lost optimistic commit, so the writers of a
    /// busy session take turns instead of racing. Answers `change`'s outcome.
    ///
    /// The default reads, then commits optimistically: right for stores that one process owns.
    func exclusiveUpdate<Outcome: Sendable>(
        _ id: String, _ change: @escaping @Sendable (SessionRecord?) async -> ExclusiveChange<Outcome>
    ) async throws(StoreError) -> Outcome
    /// What the store does in the background for as long as it is used — run its connection
    /// pool, copy its write-ahead log — as swift-service-lifecycle services, to run in the
    /// app's `ServiceGroup` (FlowServerRuntime does; tests use FlowTesting's
    /// `withRunningServices`). A store whose services do not run may not work. None by default.
    var services: [any Service] { get }
    /// Gets the store ready once its ``services`` run (PostgreSQL: connects and migrates); call
    /// it before any other call. The default does nothing.
    ///
    /// - Throws: ``StoreError`` (unavailable) with a one-line reason when the store cannot be used.
    func prepare() async throws(StoreError)
}

/// What ``SessionStore/load(_:unlessAt:)`` found.
public enum SessionReading: Sendable {
    /// No session (never created, deleted, or purged).
    case missing
    /// The session is at the version the caller holds.
    case unchanged
    /// The session, at another version.
    case changed(SessionRecord)
}

/// What an ``SessionStore/exclusiveUpdate(_:_:)`` change decided: what to commit (nothing, or a
/// record and its new history entries), and what to answer.
public struct ExclusiveChange<Outcome: Sendable>: Sendable {
    /// The new record and history entries to commit, or `nil` to commit nothing.
    public var commit: (record: SessionRecord, entries: [HistoryRecord])?
    /// What the update answers.
    public var outcome: Outcome

    /// A change that commits `commit` (if any) and answers `outcome`.
    public init(commit: (record: SessionRecord, entries: [HistoryRecord])?, outcome: Outcome) {
        self.commit = commit
        self.outcome = outcome
    }
}

extension SessionStore {
    /// A store of one process's own.
    public var isShared: Bool { false }

    /// No background work.
    public var services: [any Service] { [] }

    /// Ready at once.
    public func prepare() async throws(StoreError) {}

    /// Loads the session and compares its version.
    public func load(_ id: String, unlessAt version: Int) async throws(StoreError) -> SessionReading {
        guard let record = try await load(id) else { return .missing }
        return record.version == version ? .unchanged : .changed(record)
    }

    /// One load per id; a shared store asks once for all.
    public func versions(of ids: [String]) async throws(StoreError) -> [String: Int] {
        var versions: [String: Int] = [:]
        for id in ids { if let record = try await load(id) { versions[id] = record.version } }
        return versions
    }

    public func exclusiveUpdate<Outcome: Sendable>(
        _ id: String, _ change: @escaping @Sendable (SessionRecord?) async -> ExclusiveChange<Outcome>
    ) async throws(StoreError) -> Outcome {
        let current = try await load(id)
        let decided = await change(current)
        if let current, let commit = decided.commit {
            try await self.commit(commit.record, expectedVersion: current.version, entries: commit.entries)
        }
        return decided.outcome
    }
}

/// A session's snapshot.
public struct SessionRecord: Sendable, Hashable {
    /// The session id (the cookie value or bearer token).
    public var id: String
    /// Grows by one with every committed change.
    public var version: Int
    /// The encoded coordinator tree.
    public var tree: [UInt8]
    /// The app's per-session data, encoded.
    public var appData: [UInt8]
    /// The session's CSRF token.
    public var csrfToken: String
    /// The last history sequence number given out.
    public var lastSeq: Int
    /// Web-layer bookkeeping the store keeps verbatim (e.g. recent submissions for duplicate
    /// detection), encoded.
    public var extra: [UInt8]
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Milliseconds since 1970 of the last change or use.
    public var lastUsedAt: Int64
    /// Milliseconds since 1970 after which the session is gone.
    public var expiresAt: Int64

    /// A record.
    public init(
        id: String, version: Int, tree: [UInt8], appData: [UInt8] = [], csrfToken: String, lastSeq: Int,
        extra: [UInt8] = [], createdAt: Int64, lastUsedAt: Int64, expiresAt: Int64
    ) {
        self.id = id
        self.version = version
        self.tree = tree
        self.appData = appData
        self.csrfToken = csrfToken
        self.lastSeq = lastSeq
        self.extra = extra
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

extension SessionRecord {
    /// The row that marks session `id` as deleted until `until` (when its id would have expired
    /// anyway): version 0, nothing else kept. Stores keep it like any session, purge it when it
    /// expires, and leave it out of ``SessionStore/liveCount(now:)``.
    public static func deleted(id: String, until: Int64) -> SessionRecord {
        SessionRecord(
            id: id, version: 0, tree: [], csrfToken: "", lastSeq: 0, createdAt: until, lastUsedAt: until,
            expiresAt: until)
    }

    /// Whether this is the marker of a deleted session (see ``deleted(id:until:)``).
    public var isDeleted: Bool { version == 0 }
}

/// One history entry as stored: its sequence number and its encoded form.
public struct HistoryRecord: Sendable, Hashable {
    /// The entry's sequence number within its session (only grows).
    public var seq: Int
    /// The encoded entry.
    public var entry: [UInt8]

    /// A record.
    public init(seq: Int, entry: [UInt8]) {
        self.seq = seq
        self.entry = entry
    }
}

/// A store failure: a version conflict, a missing session, or the store being unavailable.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case conflict(session: String, expected: Int, found: Int?)
        case duplicate(session: String)
        case unavailable(String)
    }

    private let kind: Kind

    /// Another writer changed the session first.
    public static func conflict(session: String, expected: Int, found: Int?) -> Self {
        Self(kind: .conflict(session: session, expected: expected, found: found))
    }
    /// A session with that id exists already.
    public static func duplicate(session: String) -> Self { Self(kind: .duplicate(session: session)) }
    /// The store cannot be reached or used now; `reason` says why.
    public static func unavailable(_ reason: String) -> Self { Self(kind: .unavailable(reason)) }

    /// Whether the commit lost to another writer (reload and try again).
    public var isConflict: Bool {
        if case .conflict = kind { return true }
        return false
    }

    /// Whether a session with that id exists already.
    public var isDuplicate: Bool {
        if case .duplicate = kind { return true }
        return false
    }

    /// Whether the store is unavailable (answer `503`).
    public var isUnavailable: Bool {
        if case .unavailable = kind { return true }
        return false
    }

    public var description: String {
        switch kind {
        case .conflict(let session, let expected, let found):
            "session \(session.prefix(8))… changed meanwhile: expected version \(expected), found \(found.map(String.init) ?? "none")"
        case .duplicate(let session):
            "session \(session.prefix(8))… exists already"
        case .unavailable(let reason):
            "the session store is unavailable: \(reason)"
        }
    }
}
