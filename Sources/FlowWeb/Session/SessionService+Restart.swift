import FlowCore
import FlowStore

extension SessionService {
    /// Session `record`, which this build cannot read (`unreadable` says why), set aside and
    /// started again under the same id: the record and its history go to the store's quarantine
    /// (kept for the session's lifetime, for a later build to bring back), and the session goes on
    /// from the app's initial state with its app data when that still decodes, its CSRF token and
    /// creation time. Its history restarts with a `restart` entry that keeps the state it led to
    /// and the reason (the entries before it are in the quarantine); its pages show
    /// ``LoadedSession/restartNotice`` until it next changes. Logged once and counted by cause.
    ///
    /// When another writer changed the session meanwhile, that version is read instead (and
    /// restarted again if it is unreadable too, once).
    ///
    /// - Throws: ``WebError`` `503` when the store fails, or when the session keeps being written
    ///   in a form this build cannot read.
    func restart(_ record: SessionRecord, because unreadable: UnreadableSession, attempts: Int = 2)
        async throws(WebError) -> LoadedSession?
    {
        let id = record.id
        let now = clock()
        let history = try await calls.run { () async throws(StoreError) in
            try await store.history(id, after: 0, limit: Int.max)
        }
        let setAside = QuarantinedSession(
            record: record, history: history, reason: unreadable.reason, cause: unreadable.cause.rawValue,
            writtenBy: (try? CompactJSONDecoder().decode(SessionExtra.self, from: record.extra))?.appVersion,
            quarantinedAt: now, expiresAt: now + lifetime.ttl)
        try await calls.run { () async throws(StoreError) in try await store.quarantine(setAside) }
        let restarted = try await restartedSession(record, because: unreadable, now: now)
        do {
            try await store.commit(restarted.record, expectedVersion: record.version, entries: [restarted.entry])
            calls.health.succeeded()
        } catch  where error.isConflict {
            guard attempts > 1,
                let current = try await calls.run({ () async throws(StoreError) in try await store.load(id) })
            else { throw unreadable.webError }
            guard !current.isDeleted, current.expiresAt > clock() else { return nil }
            do throws(UnreadableSession) { return try decoded.freshest(from: current, decoder: decoder) } catch {
                guard error.cause != .newerVersion else { throw error.webError }
                return try await restart(current, because: error, attempts: attempts - 1)
            }
        } catch {
            throw calls.failure(error)
        }
        _ = try? await calls.run { () async throws(StoreError) in
            try await store.dropHistory(id, before: restarted.entry.seq)
        }
        metrics?.recordSessionRestart(unreadable.cause.rawValue)
        logger.warning(
            "session restarted: the app cannot read it as stored; set aside in the store's quarantine",
            metadata: [
                "session": "\(id.prefix(8))", "cause": "\(unreadable.cause.rawValue)",
                "reason": "\(unreadable.reason)", "version": "\(record.version)",
            ])
        let session = restarted.session
        decoded.store(session)
        if let top = session.tree.top {
            events.publish(id, version: session.record.version, top: PageReference(node: top.id.rawValue, url: top.url))
        }
        return session
    }

    /// `record` started again from the app's initial state, one version later, and the entry that
    /// records it. Node ids are never reused, so the initial tree's are moved past every id the
    /// stored tree gave out: a page left open from before (a form, a link naming its node) then
    /// finds its node gone and is answered as stale, instead of acting on another page.
    private func restartedSession(_ record: SessionRecord, because unreadable: UnreadableSession, now: Int64)
        async throws(WebError) -> (session: LoadedSession, record: SessionRecord, entry: HistoryRecord)
    {
        let initial = try await initial.value()
        var treeJSON: JSON
        do { treeJSON = try JSON(parsing: initial.treeBytes) } catch {
            throw .internalError("cannot read the app's initial tree: \(error)")
        }
        let offset: Int
        if case .int(let next)? = (try? JSON(parsing: record.tree))?["nextNode"] {
            offset = max(0, next - 1)
        } else {
            offset = 1 << 20
        }
        treeJSON.renumberNodes(by: offset)
        let treeBytes = treeJSON.bytes
        var appData = initial.appDataBytes
        if !record.appData.isEmpty, unreadable.cause != .appData, decoder.canRead(appData: record.appData) {
            appData = record.appData
        }
        let tree: NavigationTree
        do { tree = try NavigationTree(json: treeBytes, appData: appData, registry: decoder.registry) } catch {
            throw .internalError("cannot start a session again: \(error)")
        }
        guard let top = tree.top else { throw .internalError("the app's initial tree shows no page") }
        let (version, seq) = (record.version + 1, record.lastSeq + 1)
        var extra = SessionExtra(level: decoder.migrator.level, appVersion: app.version)
        extra.levels = decoder.migrator.level > 0 ? [[version, decoder.migrator.level]] : []
        extra.restartedAt = version
        extra.snapshots = [seq]
        let entry = StoredEntry<Step>(
            seq: seq, at: now, source: .restart, url: nil, version: version,
            navigation: Navigation(
                trigger: .start, outcome: .navigated, adaptedStep: nil, actions: [], steps: [], top: top.id,
                topURL: top.url),
            snapshot: StateSnapshot(tree: treeBytes, appData: appData), reason: unreadable.reason)
        let stored: (extra: [UInt8], entry: HistoryRecord)
        do { stored = (extra.jsonBytes(), try entry.encoded()) } catch {
            throw .internalError("cannot encode a restarted session: \(error)")
        }
        let restarted = SessionRecord(
            id: record.id, version: version, tree: treeBytes, appData: appData, csrfToken: record.csrfToken,
            lastSeq: seq, extra: stored.extra, createdAt: record.createdAt, lastUsedAt: now,
            expiresAt: now + lifetime.ttl)
        var session = LoadedSession(record: restarted, tree: tree, extra: extra)
        let createdAt = record.createdAt
        session.makeCommitted = { [entry.entry(sessionCreatedAt: createdAt)] }
        return (session, restarted, stored.entry)
    }
}
