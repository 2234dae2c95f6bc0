import FlowCore
import FlowStore

extension SessionService {
    /// Runs `body` on the session under its lock and commits what it changed (``OptimisticCommit``).
    /// `body` starts from the newest copy this instance has — `known`, the session as the caller
    /// read it, or what this instance committed or read since (requests of one session that
    /// waited for its lock start from each other's commits, with no read in between) — or, when the
    /// cache of decoded sessions no longer holds it, from the session read again. A session not
    /// stored yet is stored by its first change (with its start entry first), when its client may
    /// store another (see ``SessionCreationLimit``). The history the commit folds into a snapshot
    /// is dropped once the lock is released.
    ///
    /// - Throws: ``WebError`` `404` when the session is gone, `429` when its client stored too
    ///   many new sessions lately, `503` when the store fails.
    func update<Result: Sendable>(
        _ known: LoadedSession,
        _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws(WebError) -> UpdatedSession<Result> {
        let id = known.record.id
        do {
            // The history is folded once the lock is released: dropping entries a stored snapshot
            // covers needs no lock, and the session's next change need not wait for it.
            let (updated, folding, refusal) = try await locks.withLock(id) {
                () async throws -> OptimisticCommit<Step, Result>.Committed in
                var current: LoadedSession?
                if known.isStored, var latest = self.decoded.latest(id), latest.record.version >= known.record.version {
                    // What this instance read or committed since `known` was read, as fresh as
                    // reading again (the commit's version check catches another instance's change).
                    latest.isConfirmed = known.isConfirmed
                    current = latest.record.version == known.record.version ? known : latest
                } else {
                    current = try await self.load(id)
                }
                return try await OptimisticCommit(service: self, client: known.client, body: body).run(from: current)
            }
            if let folding { await fold(folding) }
            if let refusal { throw refusal.error }
            return updated
        } catch let error as WebError {
            throw error
        } catch let error as StoreError {
            throw calls.failure(error)
        } catch {
            throw .internalError("\(error)")
        }
    }

    /// Drops the history entries `prepared` folded into a snapshot, once it is stored. A failure
    /// is logged and left: the entries stay until a later fold or the session's end.
    private func fold(_ prepared: SessionCommit<Step>) async {
        guard let before = prepared.dropHistoryBefore else { return }
        let id = prepared.record.id
        _ = try? await calls.run { () async throws(StoreError) in try await store.dropHistory(id, before: before) }
    }

    /// `session` as it is once `prepared` was committed (and cached as such).
    func committed(_ prepared: SessionCommit<Step>, _ session: LoadedSession) -> LoadedSession {
        var session = session
        session.record = prepared.record
        session.committed = prepared.entries.map { $0.entry(sessionCreatedAt: prepared.record.createdAt) }
        session.extra = prepared.extra
        session.extra.changed = false
        session.encoded = prepared.encoded
        session.isConfirmed = true
        decoded.store(session)
        if let top = session.tree.top {
            events.publish(
                prepared.record.id, version: prepared.record.version,
                top: PageReference(node: top.id.rawValue, url: top.url))
        }
        return session
    }
}
