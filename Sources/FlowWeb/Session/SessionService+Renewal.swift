import FlowStore

extension SessionService {
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
            }.session
        } catch  where error.status == .notFound {
            return nil  // purged or deleted since it was loaded
        } catch  where error.status == .serviceUnavailable {
            return session  // the store cannot write now: serve what it read; a later use renews
        }
    }

    /// The session `id` for a request that changes it only through ``update(_:_:)``: the copy
    /// this instance holds, not confirmed by the store (``LoadedSession/isConfirmed``), when it
    /// holds one that is live and not due for renewal; otherwise as ``loadForUse(_:)`` reads it.
    /// A step then costs the store its commit alone, whose version check proves the copy was
    /// current; ``update(_:_:)`` reads only when the copy turns out stale or nothing is committed.
    func loadForChange(_ id: String) async throws(WebError) -> LoadedSession? {
        if var held = decoded.latest(id), !held.record.isDeleted, held.record.expiresAt > clock(),
            !isDueForRenewal(held.record)
        {
            held.isConfirmed = false
            return held
        }
        return try await loadForUse(id)
    }

    /// `session` as the store has it now, when it is a held copy not confirmed (see
    /// ``loadForChange(_:)``); `session` itself otherwise.
    ///
    /// - Throws: ``WebError`` `404` when the session is gone, `503` when the store fails.
    func confirmed(_ session: LoadedSession) async throws(WebError) -> LoadedSession {
        guard !session.isConfirmed else { return session }
        guard var stored = try await load(session.record.id) else {
            throw .notFound("this session does not exist or has expired")
        }
        stored.client = session.client
        return stored
    }

    /// Whether `record` was last used long enough ago for its expiry to be pushed back.
    func isDueForRenewal(_ record: SessionRecord) -> Bool {
        lifetime.isDueForRenewal(lastUsedAt: record.lastUsedAt, now: clock())
    }
}
