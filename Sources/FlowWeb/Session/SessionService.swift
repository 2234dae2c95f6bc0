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
    let decoder: StoredSessionDecoder
    /// Mints and checks session ids and derives their CSRF tokens.
    let ids: SessionIDs
    /// Where every session starts.
    let initial: InitialState<Step>
    /// How fast one client may have new sessions stored (`nil`: no limit).
    let creationLimit: SessionCreationLimit?
    /// The open event streams, told of every commit.
    let events: SessionEvents
    let locks = SessionLocks()
    let clock: @Sendable () -> Int64
    let metrics: WebMetrics?
    /// What the logs say about store failures.
    let storeHealth: StoreHealthLog
    /// Trees this instance decoded or committed lately, so unchanged sessions skip decoding.
    let decoded = DecodedSessionCache(capacity: 4096)
    /// With a shared store, what reads the changes other instances commit (see
    /// ``publishRemoteChanges()``).
    private let remoteChanges = Mutex<Task<Void, Never>?>(nil)
    /// How often the versions of streamed sessions are read from a shared store.
    static var remoteChangeInterval: Duration { .milliseconds(500) }

    init(
        app: WebApp<Step>, store: any SessionStore, ttlSeconds: Int, secret: [UInt8],
        creationLimit: SessionCreationLimit? = nil,
        events: SessionEvents = SessionEvents(limits: .init(perSession: 16, total: 1000)),
        observers: [any NavigationObserver<Step>],
        metrics: WebMetrics? = nil, logger: Logger = Logger(label: "FlowWeb"),
        clock: @escaping @Sendable () -> Int64 = SessionClock.nowMilliseconds
    ) {
        self.metrics = metrics
        storeHealth = StoreHealthLog(logger: logger)
        self.app = app
        coordinator = Coordinator(app: app.flows, context: app.context, observers: observers)
        initial = InitialState(coordinator: coordinator)
        ids = SessionIDs(secret: secret)
        self.creationLimit = creationLimit
        self.events = events
        self.store = store
        lifetime = SessionLifetime(ttlSeconds: ttlSeconds)
        decoder = StoredSessionDecoder(registry: app.flows.registry)
        self.clock = clock
        if store.isShared { watchRemoteChanges() }
    }

    deinit { remoteChanges.withLock { $0?.cancel() } }

    /// Changes that other instances commit to the sessions whose changes this one streams: every
    /// ``remoteChangeInterval`` their stored versions are read in one query, and each session
    /// found newer is loaded and its streams told. Polling rather than PostgreSQL's
    /// `LISTEN`/`NOTIFY`: one bounded query per interval however many sessions change, no
    /// connection held open to listen on, nothing added to every commit, and any shared store
    /// can answer it.
    func publishRemoteChanges() async {
        let watched = events.watched
        guard !watched.isEmpty, let stored = try? await store.versions(of: Array(watched.keys)) else { return }
        for (id, version) in stored where version > watched[id] ?? 0 {
            guard let session = try? await load(id), let top = session.tree.top else { continue }
            events.publish(id, version: session.record.version, top: PageReference(node: top.id.rawValue, url: top.url))
        }
    }

    private func watchRemoteChanges() {
        remoteChanges.withLock { task in
            task = Task.detached(priority: .utility) { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.remoteChangeInterval)
                    guard let self else { return }
                    await self.publishRemoteChanges()
                }
            }
        }
    }

    /// The session `id` if this server minted it and it has not expired or been deleted: as
    /// stored, or at the app's initial state while nothing is stored under it. Its tree comes
    /// from the cache of decoded trees when this instance saw the stored version already. The
    /// signature of an id found stored is not checked again: only checked ids are ever stored.
    func load(_ id: String) async throws(WebError) -> LoadedSession? {
        guard SessionIDs.isWellFormed(id) else { return nil }
        // The store's async read, even when it can read immediately: async code must never wait
        // on the calling thread for a resource (a reader, a connection) that another task holds.
        let record = try await usingStore { () async throws(StoreError) in try await store.load(id) }
        let now = clock()
        if let record {
            guard !record.isDeleted, record.expiresAt > now else { return nil }
            return try decoded.session(from: record, decoder: decoder)
        }
        guard case .signed(let mintedAt) = ids.check(id), mintedAt + lifetime.ttl > now else { return nil }
        return try await initial.value().session(
            id: id, mintedAt: mintedAt, csrfToken: ids.csrfToken(for: id), lifetime: lifetime)
    }

    /// The session `id` for a request that uses it: like ``load(_:)``, and when the session was
    /// due for renewal (see ``SessionLifetime``), its expiry is pushed back (a commit without
    /// history), so a session read without navigating (reloads, the API) does not count as idle.
    /// Requests that find it due together renew it once: the first commits, and the others, which
    /// wait for its lock, then find it renewed. A session not stored is not renewed: its id
    /// expires a lifetime after it was minted, and a new one replaces it (nothing is lost).
    func loadForUse(_ id: String) async throws(WebError) -> LoadedSession? {
        guard let session = try await load(id) else { return nil }
        guard session.isStored, isDueForRenewal(session.record) else { return session }
        do {
            return try await update(session) { [self] current async throws(WebError) in
                Change(result: (), save: current.isStored && isDueForRenewal(current.record))
            }.1
        } catch  where error.status == .notFound {
            return nil  // purged or deleted since it was loaded
        } catch  where error.status == .serviceUnavailable {
            return session  // the store cannot write now: serve what it read; a later use renews
        }
    }

    /// A new session at the app's initial state, under a new id; nothing is stored until it
    /// changes.
    func fresh() async throws(WebError) -> LoadedSession {
        let initial = try await initial.value()
        let (id, mintedAt) = ids.mint(now: clock())
        var session = initial.session(id: id, mintedAt: mintedAt, csrfToken: ids.csrfToken(for: id), lifetime: lifetime)
        session.committed = [initial.start.entry(sessionCreatedAt: mintedAt)]
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
        try await usingStore { () async throws(StoreError) in
            try await store.create(session.record, entries: [initial.startRecord])
        }
        decoded.store(
            session.record.id, version: session.record.version, .init(tree: initial.tree, extra: SessionExtra()))
        session.isStored = true
        return session
    }

    /// Runs `body` on the session under its lock and commits what it changed. `body` starts from
    /// `known`, the session as the caller read it, when this instance has committed nothing to it
    /// since, else from the session read again. A session not stored yet is stored by its first
    /// change (with its start entry first), when its client may store another (see
    /// ``SessionCreationLimit``). When another instance committed to the session meanwhile, the
    /// commit fails its version check (or the first store finds it stored): then the session is
    /// read again and `body` applied again, this time with the session held exclusively in the
    /// store (so a busy session's instances take turns rather than race); that retry cannot
    /// lose, so a change is applied at most twice.
    ///
    /// - Throws: ``WebError`` `404` when the session is gone, `429` when its client stored too
    ///   many new sessions lately, `503` when the store fails.
    func update<Result: Sendable>(
        _ known: LoadedSession,
        _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws(WebError) -> (Result, LoadedSession) {
        let id = known.record.id
        do {
            return try await locks.withLock(id) { () async throws -> (Result, LoadedSession) in
                let current: LoadedSession?
                if known.isStored, self.decoded.version(of: id) == known.record.version {
                    current = known
                } else {
                    current = try await self.load(id)
                }
                guard var session = current else {
                    throw WebError.notFound("this session does not exist or has expired")
                }
                session.client = known.client
                let appData = session.tree.appData
                let change = try await body(&session)
                guard change.commits else { return (change.result, session) }
                do {
                    let prepared = try self.prepare(session, entries: change.entries, appDataBefore: appData)
                    if session.isStored {
                        try await self.store.commit(
                            prepared.record, expectedVersion: session.record.version, entries: prepared.history)
                    } else {
                        try self.admit(session)
                        let start = try await self.initial.value().startRecord
                        try await self.store.create(prepared.record, entries: [start] + prepared.history)
                    }
                    self.storeHealth.succeeded()
                    return (change.result, self.committed(prepared, session))
                } catch let error as StoreError where error.isConflict || error.isDuplicate {
                    self.metrics?.recordCommitConflict()
                    return try await self.updateExclusively(id, body)
                }
            }
        } catch let error as WebError {
            throw error
        } catch let error as StoreError {
            throw storeFailure(error)
        } catch {
            throw .internalError("\(error)")
        }
    }

    /// Takes a token from the rate of new sessions of `session`'s client, or throws `429`.
    private func admit(_ session: LoadedSession) throws(WebError) {
        guard let creationLimit, let client = session.client, let wait = creationLimit.take(client, now: clock()) else {
            return
        }
        metrics?.recordRateLimited()
        throw .tooManyRequests(
            "This address has started more than \(creationLimit.perMinute) sessions a minute lately. Try again in \(wait) s.",
            retryAfter: wait)
    }

    /// `body` applied to session `id` read and committed with no other writer in between.
    private func updateExclusively<Result: Sendable>(
        _ id: String, _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws -> (Result, LoadedSession) {
        let now = clock()
        let outcome = try await store.exclusiveUpdate(id) {
            record -> ExclusiveChange<Swift.Result<(Result, LoadedSession, Prepared?), WebError>> in
            guard let record, !record.isDeleted, record.expiresAt > now else {
                return ExclusiveChange(
                    commit: nil, outcome: .failure(.notFound("this session does not exist or has expired")))
            }
            do throws(WebError) {
                var session = try self.decoded.session(from: record, decoder: self.decoder)
                let appData = session.tree.appData
                let change = try await body(&session)
                guard change.commits else {
                    return ExclusiveChange(commit: nil, outcome: .success((change.result, session, nil)))
                }
                let prepared = try self.prepare(session, entries: change.entries, appDataBefore: appData)
                return ExclusiveChange(
                    commit: (prepared.record, prepared.history), outcome: .success((change.result, session, prepared)))
            } catch {
                return ExclusiveChange(commit: nil, outcome: .failure(error))
            }
        }
        let (result, session, prepared) = try outcome.get()
        return (result, prepared.map { committed($0, session) } ?? session)
    }

    /// The history entries of `session` after `after`, at most `limit`.
    func history(_ session: LoadedSession, after: Int, limit: Int) async throws(WebError) -> [HistoryEntry] {
        guard session.isStored else {
            // Only the start entry, which is not stored yet either.
            let start = try await initial.value().start.entry(sessionCreatedAt: session.record.createdAt)
            return after < start.seq && limit > 0 ? [start] : []
        }
        let session = session.record
        let records: [HistoryRecord]
        records = try await usingStore { () async throws(StoreError) in
            try await store.history(session.id, after: after, limit: limit)
        }
        var entries: [HistoryEntry] = []
        for record in records {
            do {
                entries.append(try StoredEntry<Step>(record).entry(sessionCreatedAt: session.createdAt))
            } catch {
                throw .internalError("history entry \(record.seq) cannot be read: \(error)")
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
            try await usingStore { () async throws(StoreError) in try await store.delete(id) }
            return
        }
        let marker = SessionRecord.deleted(id: id, until: max(session.record.expiresAt, mintedAt + lifetime.ttl))
        if !session.isStored { try admit(session) }
        try await usingStore { () async throws(StoreError) in
            if session.isStored { try await store.delete(id) }
            do throws(StoreError) { try await store.create(marker, entries: []) } catch {
                if !error.isDuplicate { throw error }
            }
        }
    }

    /// A session's next record and the history it appends, ready to commit.
    struct Prepared: Sendable {
        var record: SessionRecord
        var history: [HistoryRecord]
        var entries: [StoredEntry<Step>]
    }

    /// `appDataBefore` is the app data `session.record` holds the bytes of: unchanged, they are
    /// kept rather than encoded again (most steps change only the tree).
    private func prepare(_ session: LoadedSession, entries pending: [PendingEntry<Step>], appDataBefore: AnyAppData)
        throws(WebError) -> Prepared
    {
        let now = clock()
        var record = session.record
        record.version += 1
        var history: [HistoryRecord] = []
        var stored: [StoredEntry<Step>] = []
        for entry in pending {
            record.lastSeq += 1
            let entry = StoredEntry(
                seq: record.lastSeq, at: now, source: entry.source, url: entry.url, version: record.version,
                navigation: entry.navigation)
            stored.append(entry)
            history.append(try encoded(entry))
        }
        do {
            record.tree = try session.tree.jsonBytes()
            if session.tree.appData != appDataBefore { record.appData = try session.tree.appDataJSON() }
            if session.extra.changed { record.extra = try CompactJSONEncoder().encode(session.extra) }
        } catch {
            throw .internalError("cannot encode session \(record.id.prefix(8))…: \(error)")
        }
        if isDueForRenewal(record, now: now) {
            record.lastUsedAt = now
            record.expiresAt = now + lifetime.ttl
        }
        return Prepared(record: record, history: history, entries: stored)
    }

    /// `session` as it is once `prepared` was committed (and cached as such).
    private func committed(_ prepared: Prepared, _ session: LoadedSession) -> LoadedSession {
        var session = session
        session.record = prepared.record
        session.committed = prepared.entries.map { $0.entry(sessionCreatedAt: prepared.record.createdAt) }
        session.extra.changed = false
        decoded.store(
            prepared.record.id, version: prepared.record.version, .init(tree: session.tree, extra: session.extra))
        if let top = session.tree.top {
            events.publish(
                prepared.record.id, version: prepared.record.version,
                top: PageReference(node: top.id.rawValue, url: top.url))
        }
        return session
    }

    private func isDueForRenewal(_ record: SessionRecord, now: Int64? = nil) -> Bool {
        lifetime.isDueForRenewal(lastUsedAt: record.lastUsedAt, now: now ?? clock())
    }

    private func encoded(_ entry: StoredEntry<Step>) throws(WebError) -> HistoryRecord {
        do {
            return try entry.encoded()
        } catch {
            throw .internalError("cannot encode history entry \(entry.seq): \(error)")
        }
    }

    /// `body`'s answer from the store; a failure becomes `503`, and is logged (see ``StoreHealthLog``).
    private func usingStore<T>(_ body: () async throws(StoreError) -> T) async throws(WebError) -> T {
        do {
            let answer = try await body()
            storeHealth.succeeded()
            return answer
        } catch {
            throw storeFailure(error)
        }
    }

    private func storeFailure(_ error: StoreError) -> WebError {
        storeHealth.failed(error.description)
        return .unavailable(error.description)
    }
}
