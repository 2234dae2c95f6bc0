import FlowCore
import FlowStore
import Foundation

/// Sessions for one app: creates them (starting the app), loads them, and changes them under
/// their lock, committing the new tree with its history entries before anyone is answered.
final class SessionService<Step: FlowStep>: Sendable {
    /// A change to a session: what to answer, the entries to record, and whether to save.
    struct Change<Result: Sendable>: Sendable {
        var result: Result
        var entries: [PendingEntry<Step>] = []
        var save = false
    }

    let app: WebApp<Step>
    let coordinator: Coordinator<Step>
    let store: any SessionStore
    let ttl: Int64
    let locks = SessionLocks()
    let clock: @Sendable () -> Int64
    let metrics: WebMetrics?

    /// How many times in all a change is tried when its commits lose to other writers (other
    /// instances sharing the store). Each lost round means another instance committed, so a
    /// session under heavy contention from two instances still gets its turn long before this.
    static var commitAttempts: Int { 32 }

    init(app: WebApp<Step>, store: any SessionStore, ttlSeconds: Int, observers: [any NavigationObserver<Step>],
         metrics: WebMetrics? = nil, clock: @escaping @Sendable () -> Int64 = SessionClock.nowMilliseconds) {
        self.metrics = metrics
        self.app = app
        coordinator = Coordinator(app: app.flows, context: app.context, observers: observers)
        self.store = store
        ttl = Int64(ttlSeconds) * 1000
        self.clock = clock
    }

    /// `count` random bytes from the system's secure generator, as hex.
    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<count {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        return text
    }

    /// Session ids are 48 hex digits (192 random bits); anything else is not even looked up.
    static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 48 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The session `id` if it exists and has not expired.
    func load(_ id: String) async throws(WebError) -> LoadedSession? {
        guard Self.isWellFormed(id) else { return nil }
        let record: SessionRecord?
        do { record = try await store.load(id) } catch { throw Self.storeFailure(error) }
        guard let record, record.expiresAt > clock() else { return nil }
        return try decode(record)
    }

    /// A new session: the app started, its start entry recorded.
    func create() async throws(WebError) -> LoadedSession {
        let started: (tree: NavigationTree, navigation: Navigation<Step>)
        do { started = try await coordinator.start() } catch { throw .internalError("the app cannot start: \(error)") }
        let now = clock()
        var record = SessionRecord(
            id: Self.randomHex(bytes: 24), version: 1, tree: [], csrfToken: Self.randomHex(bytes: 16), lastSeq: 1,
            createdAt: now, lastUsedAt: now, expiresAt: now + ttl)
        do {
            record.tree = try started.tree.jsonBytes()
            record.appData = try started.tree.appDataJSON()
        } catch {
            throw .internalError("cannot encode the new session: \(error)")
        }
        let entry = try stored(PendingEntry(source: .start, navigation: started.navigation, url: nil), seq: 1, version: 1, at: now)
        do { try await store.create(record, entries: [entry]) } catch { throw Self.storeFailure(error) }
        return LoadedSession(record: record, tree: started.tree, extra: SessionExtra())
    }

    /// Runs `body` on session `id` under its lock and commits what it changed. Retries when
    /// another instance changed the session meanwhile.
    ///
    /// - Throws: ``WebError`` `404` when the session is gone, `503` when the store fails.
    func update<Result: Sendable>(
        _ id: String, _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws(WebError) -> (Result, LoadedSession) {
        do {
            return try await locks.withLock(id) { () async throws -> (Result, LoadedSession) in
                var attempt = 0
                while true {
                    attempt += 1
                    guard var session = try await self.load(id) else { throw WebError.notFound("this session does not exist or has expired") }
                    let change = try await body(&session)
                    guard change.save || !change.entries.isEmpty else { return (change.result, session) }
                    do {
                        try await self.commit(&session, entries: change.entries)
                        return (change.result, session)
                    } catch let error as StoreError where error.isConflict && attempt < Self.commitAttempts {
                        self.metrics?.recordCommitConflict()
                        // Reload and apply again, after a short random pause that breaks lockstep
                        // with the writer that won.
                        try await Task.sleep(for: .microseconds(Int.random(in: 0...(100 * min(attempt, 10)))))
                        continue
                    }
                }
            }
        } catch let error as WebError {
            throw error
        } catch let error as StoreError {
            throw Self.storeFailure(error)
        } catch {
            throw .internalError("\(error)")
        }
    }

    /// History entries after `after`, at most `limit`.
    func history(_ id: String, after: Int, limit: Int) async throws(WebError) -> [HistoryEntry] {
        let records: [HistoryRecord]
        do { records = try await store.history(id, after: after, limit: limit) } catch { throw Self.storeFailure(error) }
        var entries: [HistoryEntry] = []
        for record in records {
            do {
                entries.append(try CompactJSONDecoder().decode(StoredEntry<Step>.self, from: record.entry).entry)
            } catch {
                throw .internalError("history entry \(record.seq) cannot be read: \(error)")
            }
        }
        return entries
    }

    /// Deletes session `id`.
    func delete(_ id: String) async throws(WebError) {
        do { try await store.delete(id) } catch { throw Self.storeFailure(error) }
    }

    private func commit(_ session: inout LoadedSession, entries pending: [PendingEntry<Step>]) async throws {
        let now = clock()
        var record = session.record
        let expected = record.version
        record.version += 1
        var entries: [HistoryRecord] = []
        for entry in pending {
            record.lastSeq += 1
            entries.append(try stored(entry, seq: record.lastSeq, version: record.version, at: now))
        }
        record.tree = try session.tree.jsonBytes()
        record.appData = try session.tree.appDataJSON()
        record.extra = try CompactJSONEncoder().encode(session.extra)
        record.lastUsedAt = now
        record.expiresAt = now + ttl
        try await store.commit(record, expectedVersion: expected, entries: entries)
        session.record = record
    }

    private func decode(_ record: SessionRecord) throws(WebError) -> LoadedSession {
        do {
            let tree = try NavigationTree(json: record.tree, appData: record.appData, registry: app.flows.registry)
            let extra = record.extra.isEmpty ? SessionExtra() : try CompactJSONDecoder().decode(SessionExtra.self, from: record.extra)
            return LoadedSession(record: record, tree: tree, extra: extra)
        } catch {
            throw .internalError("session \(record.id.prefix(8))… cannot be read back: \(error)")
        }
    }

    private func stored(_ pending: PendingEntry<Step>, seq: Int, version: Int, at: Int64) throws(WebError) -> HistoryRecord {
        let stored = StoredEntry(
            seq: seq, at: Self.timestamp(at), source: pending.source, url: pending.url, version: version, navigation: pending.navigation)
        do {
            return HistoryRecord(seq: seq, entry: try CompactJSONEncoder().encode(stored))
        } catch {
            throw .internalError("cannot encode history entry \(seq): \(error)")
        }
    }

    static func timestamp(_ milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }

    static func storeFailure(_ error: any Error) -> WebError {
        .unavailable("\(error)")
    }
}
