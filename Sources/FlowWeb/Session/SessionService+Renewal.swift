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

    /// Whether `record` was last used long enough ago for its expiry to be pushed back.
    func isDueForRenewal(_ record: SessionRecord) -> Bool {
        lifetime.isDueForRenewal(lastUsedAt: record.lastUsedAt, now: clock())
    }
}
