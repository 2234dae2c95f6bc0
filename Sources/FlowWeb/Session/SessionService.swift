import FlowCore
import FlowStore
import Foundation
import Logging
import Synchronization

/// Sessions for one app: mints them (at the app's initial state, not stored), loads them,
/// changes them under their lock, storing a session at its first change and committing the new
/// tree with its history entries before anyone is answered, and renews them when used. A
/// reload of the current page may skip all this (see ``FastPagePath``).
final class SessionService<Step: FlowStep>: Sendable {
    /// What ``update(_:_:)`` answers: the change's result, and the session as it left it.
    struct UpdatedSession<Result: Sendable>: Sendable {
        var result: Result
        var session: LoadedSession
    }

    /// A change to a session: what to answer, the entries to record, and whether to save.
    struct Change<Result: Sendable>: Sendable {
        var result: Result
        var entries: [PendingEntry<Step>] = []
        var save = false

        /// Whether the session must be committed.
        var commits: Bool { save || !entries.isEmpty }
    }

    let app: WebApp<Step>
    let coordinator: Coordinator<Step>
    let store: any SessionStore
    let lifetime: SessionLifetime
    /// How much history each session keeps, and how often it records snapshots.
    let retention: HistoryRetention
    /// How large a session may grow.
    let limits: SessionLimits
    let decoder: StoredSessionDecoder
    /// Mints and checks session ids and derives their CSRF tokens.
    let ids: SessionIDs
    /// Where every session starts.
    let initial: InitialState<Step>
    /// How fast one client may have new sessions stored (`nil`: no limit).
    let creationLimit: SessionCreationLimit?
    /// The open event streams, told of every commit.
    let events: SessionEvents
    /// Each session's lock, whose waiters queue their changes.
    let locks = SessionLocks<QueuedChange<Step>>()
    let clock: @Sendable () -> Int64
    let metrics: WebMetrics?
    /// Where navigations are logged.
    let logger: Logger
    /// Calls to the store, whose failures become `503` and are logged once.
    let calls: StoreCalls
    /// Trees this instance decoded or committed lately, so unchanged sessions skip decoding.
    let decoded = DecodedSessionCache(capacity: 4096)
    /// How often the versions of streamed sessions are read from a shared store (see
    /// ``publishRemoteChanges()``, which `LiveTabFanOut` runs).
    static var remoteChangeInterval: Duration { .milliseconds(500) }

    init(
        app: WebApp<Step>, store: any SessionStore, ttlSeconds: Int, secret: [UInt8],
        retention: HistoryRetention = HistoryRetention(), limits: SessionLimits = SessionLimits(),
        creationLimit: SessionCreationLimit? = nil,
        events: SessionEvents = SessionEvents(limits: .init(perSession: 16, total: 1000)),
        observers: [any NavigationObserver<Step>],
        metrics: WebMetrics? = nil, logger: Logger = Logger(label: "FlowWeb"),
        clock: @escaping @Sendable () -> Int64 = SessionClock.nowMilliseconds
    ) {
        self.metrics = metrics
        self.logger = logger
        calls = StoreCalls(store: store, health: StoreHealthLog(logger: logger))
        self.app = app
        coordinator = Coordinator(app: app.flows, context: app.context, observers: observers)
        initial = InitialState(
            coordinator: coordinator, bookkeeping: SessionExtra(level: app.migrations.count, appVersion: app.version))
        ids = SessionIDs(secret: secret)
        self.creationLimit = creationLimit
        self.events = events
        self.store = store
        lifetime = SessionLifetime(ttlSeconds: ttlSeconds)
        self.retention = retention
        self.limits = limits
        decoder = StoredSessionDecoder(
            registry: app.flows.registry, migrator: SessionMigrator(migrations: app.migrations))
        self.clock = clock
    }

    /// The session `id` if this server minted it and it has not expired or been deleted: as
    /// stored, or at the app's initial state while nothing is stored under it. Its tree comes
    /// from the cache of decoded trees when this instance saw the stored version already. The
    /// signature of an id found stored is not checked again: only checked ids are ever stored.
    /// When this instance holds a copy, the store is asked only whether it is still current, and
    /// sends the session's contents only when it is not.
    func load(_ id: String) async throws(WebError) -> LoadedSession? {
        guard SessionIDs.isWellFormed(id) else { return nil }
        // The store's async read, even when it can read immediately: async code must never wait
        // on the calling thread for a resource (a reader, a connection) that another task holds.
        let held = decoded.latest(id)
        let record: SessionRecord?
        if let held {
            let reading = try await calls.run { () async throws(StoreError) in
                try await store.load(id, unlessAt: held.record.version)
            }
            switch reading {
            case .missing: record = nil
            case .unchanged:
                guard !held.record.isDeleted, held.record.expiresAt > clock() else { return nil }
                return held
            case .changed(let changed): record = changed
            }
        } else {
            record = try await calls.run { () async throws(StoreError) in try await store.load(id) }
        }
        let now = clock()
        if let record {
            guard !record.isDeleted, record.expiresAt > now else { return nil }
            do throws(UnreadableSession) { return try decoded.freshest(from: record, decoder: decoder) } catch {
                guard error.cause != .newerVersion else { throw error.webError }
                return try await restart(record, because: error)
            }
        }
        guard case .signed(let mintedAt) = ids.check(id), mintedAt + lifetime.ttl > now else { return nil }
        return try await initial.value().session(
            id: id, mintedAt: mintedAt, csrfToken: ids.csrfToken(for: id), lifetime: lifetime)
    }

    /// A new session at the app's initial state, under a new id; nothing is stored until it
    /// changes.
    func fresh() async throws(WebError) -> LoadedSession {
        let initial = try await initial.value()
        let (id, mintedAt) = ids.mint(now: clock())
        var session = initial.session(id: id, mintedAt: mintedAt, csrfToken: ids.csrfToken(for: id), lifetime: lifetime)
        let start = initial.start
        session.makeCommitted = { [start.entry(sessionCreatedAt: mintedAt)] }
        return session
    }

    /// Session `id` minted at `mintedAt`, at the app's initial state, once that is computed; for
    /// code that cannot wait for it (``FastPagePath``).
    @Sendable func readyInitialSession(id: String, mintedAt: Int64) -> LoadedSession? {
        initial.ready?.session(id: id, mintedAt: mintedAt, csrfToken: ids.csrfToken(for: id), lifetime: lifetime)
    }

    /// A new session, stored at once (for API clients, which ask for one to use), its start
    /// entry recorded. Counts against `client`'s rate of new sessions.
    func create(client: String?) async throws(WebError) -> LoadedSession {
        var session = try await fresh()
        session.client = client
        try admit(session)
        let initial = try await initial.value()
        try await calls.run { () async throws(StoreError) in
            try await store.create(session.record, entries: [initial.startRecord])
        }
        session.isStored = true
        decoded.store(session)
        return session
    }

    /// Takes a token from the rate of new sessions of `session`'s client, or throws `429`.
    func admit(_ session: LoadedSession) throws(WebError) {
        guard let creationLimit, let client = session.client, let wait = creationLimit.take(client, now: clock()) else {
            return
        }
        metrics?.recordRateLimited()
        throw .tooManyRequests(
            "This address has started more than \(creationLimit.perMinute) sessions a minute lately. Try again in \(wait) s.",
            retryAfter: wait)
    }

    /// The history entries of `session` after `after`, at most `limit`.
    func history(_ session: LoadedSession, after: Int, limit: Int) async throws(WebError) -> [HistoryEntry] {
        guard session.isStored else {
            // Only the start entry, which is not stored yet either.
            let start = try await initial.value().start.entry(sessionCreatedAt: session.record.createdAt)
            return after < start.seq && limit > 0 ? [start] : []
        }
        let createdAt = session.record.createdAt
        return try await storedEntries(of: session, after: after, limit: limit).map {
            $0.entry(sessionCreatedAt: createdAt)
        }
    }

    /// The stored history entries of `session` after `after`, at most `limit`, migrated from the
    /// level each was written at (see ``SessionMigration``) and decoded.
    func storedEntries(of session: LoadedSession, after: Int, limit: Int) async throws(WebError)
        -> [StoredEntry<Step>]
    {
        let records = try await calls.run { () async throws(StoreError) in
            try await store.history(session.record.id, after: after, limit: limit)
        }
        let migrator = decoder.migrator
        let extra = session.extra
        let current =
            extra.levels.allSatisfy { $0[1] == migrator.level }
            && extra.levels.first.map { $0[0] <= 1 } ?? (migrator.level == 0)
        var entries: [StoredEntry<Step>] = []
        for var record in records {
            do {
                if !current {
                    let version = SessionMigrator.version(ofEntry: try JSON(parsing: record.entry)) ?? 0
                    let level = extra.level(ofEntryVersion: version)
                    if level < migrator.level { record.entry = try migrator.migrate(entry: record.entry, from: level) }
                }
                entries.append(try StoredEntry<Step>(record))
            } catch {
                throw .otherVersion(
                    "History entry \(record.seq) was stored by a version of the app this one cannot read: \(error)")
            }
        }
        return entries
    }

    /// Deletes `session` with its history. A signed id stays known as deleted until it would
    /// have expired (a marker row, see ``SessionRecord/deleted(id:until:)``), so that it does not
    /// come back as a new session; the marker of a session never stored counts as a new one.
    func delete(_ session: LoadedSession) async throws(WebError) {
        let id = session.record.id
        decoded.remove(id)
        guard case .signed(let mintedAt) = ids.check(id) else {
            try await calls.run { () async throws(StoreError) in try await store.delete(id) }
            return
        }
        let marker = SessionRecord.deleted(id: id, until: max(session.record.expiresAt, mintedAt + lifetime.ttl))
        if !session.isStored { try admit(session) }
        try await calls.run { () async throws(StoreError) in
            if session.isStored { try await store.delete(id) }
            do throws(StoreError) { try await store.create(marker, entries: []) } catch {
                if !error.isDuplicate { throw error }
            }
        }
    }

}
