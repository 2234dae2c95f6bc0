import FlowCore
import FlowStore

extension SessionService {
    /// Runs `body` on the session under its lock and commits what it changed. `body` starts from
    /// the newest copy this instance has — `known`, the session as the caller read it, or what
    /// this instance committed or read since (requests of one session that waited for its lock
    /// start from each other's commits, with no read in between) — or, when the cache of decoded
    /// sessions no longer holds it, from the session read again. A session not stored yet is
    /// stored by its first change (with its start entry first), when its client may store another
    /// (see ``SessionCreationLimit``). When another instance committed to the session meanwhile,
    /// the commit fails its version check (or the first store finds it stored): then the session
    /// is read again and `body` applied again, this time with the session held exclusively in the
    /// store (so a busy session's instances take turns rather than race); that retry cannot
    /// lose. A copy the store has not confirmed (``loadForChange(_:)``) found stale first is read
    /// again and `body` applied to that, so a change is applied at most three times.
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
                () async throws -> (UpdatedSession<Result>, SessionCommit<Step>?, LimitCrossing?) in
                var current: LoadedSession?
                if known.isStored, var latest = self.decoded.latest(id), latest.record.version >= known.record.version {
                    // What this instance read or committed since `known` was read, as fresh as
                    // reading again (the commit's version check catches another instance's change).
                    latest.isConfirmed = known.isConfirmed
                    current = latest.record.version == known.record.version ? known : latest
                } else {
                    current = try await self.load(id)
                }
                while true {
                    guard var session = current else {
                        throw WebError.notFound("this session does not exist or has expired")
                    }
                    session.client = known.client
                    switch try await self.attempt(session, body) {
                    case .done(let updated, let folding, let refusal):
                        return (updated, folding, refusal)
                    case .stale(let stored):
                        // The held copy was not current: start again from the stored version.
                        current = stored
                    case .conflict:
                        self.metrics?.recordCommitConflict()
                        return try await self.updateExclusively(id, body)
                    }
                }
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

    /// What one attempt of ``update(_:_:)`` came to.
    private enum Attempt<Result: Sendable> {
        /// Answered: the session as the change left it, the commit made (whose history is still
        /// to fold), the limit it would have crossed.
        case done(UpdatedSession<Result>, SessionCommit<Step>?, LimitCrossing?)
        /// The copy, not confirmed by the store, was not current; the stored session, read now.
        case stale(LoadedSession?)
        /// Another writer committed since the session, confirmed, was read.
        case conflict
    }

    /// `body` applied to `session` and committed. An answer worked out on a copy the store has
    /// not confirmed (``LoadedSession/isConfirmed``) stands when its commit passes the version
    /// check, or, when it commits nothing (or fails), when the store still has that version.
    private func attempt<Result: Sendable>(
        _ session: LoadedSession,
        _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws -> Attempt<Result> {
        let before = session
        var session = session
        let outcome: Swift.Result<Change<Result>, WebError>
        do throws(WebError) { outcome = .success(try await body(&session)) } catch { outcome = .failure(error) }
        if !before.isConfirmed, (try? outcome.get())?.commits != true {
            let stored = try await load(before.record.id)
            guard let stored, stored.record.version == before.record.version else { return .stale(stored) }
            session.isConfirmed = true
        }
        let change = try outcome.get()
        guard change.commits else { return .done(UpdatedSession(result: change.result, session: session), nil, nil) }
        do {
            let prepared = try prepare(session, before: before, entries: change.entries)
            let commit = prepared.commit
            if session.isStored {
                try await store.commit(commit.record, expectedVersion: session.record.version, entries: commit.history)
            } else {
                try admit(session)
                let start = try await initial.value().startRecord
                try await store.create(commit.record, entries: [start] + commit.history)
            }
            calls.health.succeeded()
            recordCommitted(prepared)
            let updated = UpdatedSession(result: change.result, session: committed(commit, prepared.session))
            return .done(updated, commit, prepared.refusal)
        } catch let error as StoreError where error.isConflict || error.isDuplicate {
            guard before.isConfirmed else { return .stale(try await load(before.record.id)) }
            return .conflict
        }
    }

    /// `body` applied to session `id` read and committed with no other writer in between, and
    /// the commit made, if any (whose history is still to fold).
    private func updateExclusively<Result: Sendable>(
        _ id: String, _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws -> (UpdatedSession<Result>, SessionCommit<Step>?, LimitCrossing?) {
        let now = clock()
        let outcome = try await store.exclusiveUpdate(id) {
            record -> ExclusiveChange<Swift.Result<(Result, LoadedSession, PreparedChange?), WebError>> in
            guard let record, !record.isDeleted, record.expiresAt > now else {
                return ExclusiveChange(
                    commit: nil, outcome: .failure(.notFound("this session does not exist or has expired")))
            }
            do throws(WebError) {
                var session: LoadedSession
                do throws(UnreadableSession) {
                    session = try self.decoded.session(from: record, decoder: self.decoder)
                } catch {
                    throw error.webError
                }
                let before = session
                let change = try await body(&session)
                guard change.commits else {
                    return ExclusiveChange(commit: nil, outcome: .success((change.result, session, nil)))
                }
                let prepared = try self.prepare(session, before: before, entries: change.entries)
                return ExclusiveChange(
                    commit: (prepared.commit.record, prepared.commit.history),
                    outcome: .success((change.result, prepared.session, prepared)))
            } catch {
                return ExclusiveChange(commit: nil, outcome: .failure(error))
            }
        }
        let (result, session, prepared) = try outcome.get()
        guard let prepared else { return (UpdatedSession(result: result, session: session), nil, nil) }
        recordCommitted(prepared)
        return (
            UpdatedSession(result: result, session: committed(prepared.commit, session)), prepared.commit,
            prepared.refusal
        )
    }

    /// Drops the history entries `prepared` folded into a snapshot, once it is stored. A failure
    /// is logged and left: the entries stay until a later fold or the session's end.
    private func fold(_ prepared: SessionCommit<Step>) async {
        guard let before = prepared.dropHistoryBefore else { return }
        let id = prepared.record.id
        _ = try? await calls.run { () async throws(StoreError) in try await store.dropHistory(id, before: before) }
    }

    /// `session` as it is once `prepared` was committed (and cached as such).
    private func committed(_ prepared: SessionCommit<Step>, _ session: LoadedSession) -> LoadedSession {
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
