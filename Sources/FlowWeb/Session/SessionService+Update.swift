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
    /// Changes that waited for the lock together are applied one after the other by the first of
    /// them and committed in one commit (see ``SessionLocks``): each is answered with the session
    /// as it left it, once the commit is stored.
    ///
    /// From here on the request's task does not queue behind the work of requests not started
    /// yet (see ``runAheadOfNewRequests()``).
    ///
    /// - Throws: ``WebError`` `404` when the session is gone, `429` when its client stored too
    ///   many new sessions lately, `503` when the store fails.
    func update<Result: Sendable>(
        _ known: LoadedSession,
        _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws(WebError) -> UpdatedSession<Result> {
        Self.runAheadOfNewRequests()
        let id = known.record.id
        if locks.take(id) {
            // Nobody waits: no queue to serve, so the change needs no place for its outcome.
            let committed: OptimisticCommit<Step, Result>.Committed
            do { committed = try await commitAlone(known, body) } catch {
                locks.release(id)
                throw error
            }
            locks.release(id)
            if let folding = committed.commit { await fold(folding) }
            if let refusal = committed.refusal { throw refusal.error }
            return committed.updated
        }
        let outcome = ChangeOutcome<Step, Result>()
        let change = QueuedChange<Step>(
            known: known,
            apply: { session in
                do throws(WebError) {
                    let change = try await body(&session)
                    outcome.applied(change.result)
                    return change.commits ? .changed(change.entries) : .unchanged
                } catch {
                    outcome.set(.failure(error))
                    return .failed
                }
            },
            commitAlone: {
                do throws(WebError) {
                    let committed = try await self.commitAlone(known, body)
                    outcome.set(committed.refusal.map { .failure($0.error) } ?? .success(committed.updated))
                    return committed.commit
                } catch {
                    outcome.set(.failure(error))
                    return nil
                }
            },
            finish: { session, refusal in outcome.finish(session, refusal: refusal) },
            fail: { outcome.set(.failure($0)) })
        guard case .holds(let queued) = await locks.acquire(id, for: change) else { return try outcome.get() }
        let folding = await commit([change] + queued.map { $0.change })
        // The history is folded once the lock is released: dropping entries a stored snapshot
        // covers needs no lock, and the session's next change need not wait for it.
        locks.release(id)
        for waiter in queued { waiter.served() }
        if let folding { await fold(folding) }
        return try outcome.get()
    }

    /// Raises the current task to `.high`, so that each time it resumes (after the session's lock,
    /// after its commit) it does not queue behind the work of requests that have not started,
    /// which run at the default priority. On Linux, Swift's global executor runs each priority's
    /// jobs on libdispatch threads of their own (`com.apple.root.user-initiated-qos` beside
    /// `com.apple.root.default-qos`), which the kernel schedules beside each other: a raised
    /// change resumes on its own queue, not at the end of the default one. Every change of a busy
    /// session waits for the one before it: when each hop on that chain queued behind new
    /// requests' work, the chain, and the tail of a step's wait on PostgreSQL with it, grew with
    /// the load (Benchmarks/README.md, session 47: pinned steps' p90 31 → 25 ms, the server's CPU
    /// a step 295 → 265 µs).
    private static func runAheadOfNewRequests() {
        withUnsafeCurrentTask { $0?.escalatePriority(to: .high) }
    }

    /// Commits `changes` (of one session, in the order they asked for its lock) and sets each
    /// one's outcome: together when they can be, else one by one. Answers the last commit whose
    /// history is to fold.
    private func commit(_ changes: [QueuedChange<Step>]) async -> SessionCommit<Step>? {
        if changes.count > 1, case .committed(let folding) = await commitTogether(changes) { return folding }
        var folding: SessionCommit<Step>?
        for change in changes {
            if let commit = await change.commitAlone() { folding = commit }
        }
        return folding
    }

    /// Commits `body` by itself, starting from the newest copy of the session this instance has.
    private func commitAlone<Result: Sendable>(
        _ known: LoadedSession,
        _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Change<Result>
    ) async throws(WebError) -> OptimisticCommit<Step, Result>.Committed {
        let id = known.record.id
        do {
            var current: LoadedSession?
            if known.isStored, var latest = decoded.latest(id), latest.record.version >= known.record.version {
                // What this instance read or committed since `known` was read, as fresh as
                // reading again (the commit's version check catches another instance's change).
                latest.isConfirmed = known.isConfirmed
                current = latest.record.version == known.record.version ? known : latest
            } else {
                current = try await load(id)
            }
            return try await OptimisticCommit(service: self, client: known.client, body: body).run(from: current)
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
        let session = Self.session(session, committedAs: prepared)
        decoded.store(session)
        if let top = session.tree.top {
            events.publish(
                prepared.record.id, version: prepared.record.version,
                top: PageReference(node: top.id.rawValue, url: top.url))
        }
        return session
    }

    /// `session` as `commit` stores it: its record, bookkeeping, encoding and new entries.
    static func session(_ session: LoadedSession, committedAs commit: SessionCommit<Step>) -> LoadedSession {
        var session = session
        session.record = commit.record
        let entries = commit.entries
        let createdAt = commit.record.createdAt
        session.makeCommitted = { entries.map { $0.entry(sessionCreatedAt: createdAt) } }
        session.extra = commit.extra
        session.extra.changed = false
        session.encoded = commit.encoded
        session.isConfirmed = true
        return session
    }
}
