import FlowCore
import FlowStore

/// One change to a session — `body`, applied to the session under its lock — committed
/// optimistically, against the version it was read at, and retried when that fails: the commit
/// of every navigation (``SessionService/update(_:_:)``).
///
/// An attempt applies `body` to the newest copy this instance has and commits it with a version
/// check (a session not stored yet is created, when its client may store another). A copy the
/// store has not confirmed (``LoadedSession/isConfirmed``) that turns out stale is read again and
/// `body` applied to that. When another instance committed meanwhile, the session is read again
/// with no other writer in between (the store's `exclusiveUpdate`) and `body` applied once more,
/// which cannot lose: a busy session's instances take turns rather than race. So `body` runs at
/// most three times.
struct OptimisticCommit<Step: FlowStep, Result: Sendable>: Sendable {
    /// What a change came to: the session as it left it, the commit made (whose history is still
    /// to fold), the limit it would have crossed.
    typealias Committed = (
        updated: SessionService<Step>.UpdatedSession<Result>, commit: SessionCommit<Step>?, refusal: LimitCrossing?
    )
    /// The change to commit.
    typealias Body = @Sendable (inout LoadedSession) async throws(WebError) -> SessionService<Step>.Change<Result>

    /// The session service whose store, caches and limits the commit goes through.
    let service: SessionService<Step>
    /// The client the change comes from (kept on copies read again).
    let client: String?
    /// The change.
    let body: Body

    /// `body` committed, starting from `current` (`nil`: the session is gone).
    ///
    /// - Throws: ``WebError`` `404` when the session is gone, errors of `body` and of the store.
    func run(from current: LoadedSession?) async throws -> Committed {
        var current = current
        while true {
            guard var session = current else { throw WebError.notFound("this session does not exist or has expired") }
            session.client = client
            switch try await attempt(session) {
            case .done(let committed):
                return committed
            case .stale(let stored):
                // The held copy was not current: start again from the stored version.
                current = stored
            case .conflict:
                service.metrics?.recordCommitConflict()
                return try await exclusively(session.record.id)
            }
        }
    }

    /// What one attempt came to.
    private enum Attempt {
        /// Answered.
        case done(Committed)
        /// The copy, not confirmed by the store, was not current; the stored session, read now.
        case stale(LoadedSession?)
        /// Another writer committed since the session, confirmed, was read.
        case conflict
    }

    /// `body` applied to `session` and committed. An answer worked out on a copy the store has
    /// not confirmed stands when its commit passes the version check, or, when it commits nothing
    /// (or fails), when the store still has that version.
    private func attempt(_ session: LoadedSession) async throws -> Attempt {
        let before = session
        var session = session
        let outcome: Swift.Result<SessionService<Step>.Change<Result>, WebError>
        do throws(WebError) { outcome = .success(try await body(&session)) } catch { outcome = .failure(error) }
        if !before.isConfirmed, (try? outcome.get())?.commits != true {
            let stored = try await service.load(before.record.id)
            guard let stored, stored.record.version == before.record.version else { return .stale(stored) }
            session.isConfirmed = true
        }
        let change = try outcome.get()
        guard change.commits else {
            return .done((SessionService<Step>.UpdatedSession(result: change.result, session: session), nil, nil))
        }
        let store = service.store
        do {
            let prepared = try service.prepare(session, before: before, entries: change.entries)
            let commit = prepared.commit
            if session.isStored {
                try await store.commit(commit.record, expectedVersion: session.record.version, entries: commit.history)
            } else {
                try service.admit(session)
                let start = try await service.initial.value().startRecord
                try await store.create(commit.record, entries: [start] + commit.history)
            }
            service.calls.health.succeeded()
            service.recordCommitted(prepared)
            let updated = SessionService<Step>.UpdatedSession(
                result: change.result, session: service.committed(commit, prepared.session))
            return .done((updated, commit, prepared.refusal))
        } catch let error as StoreError where error.isConflict || error.isDuplicate {
            guard before.isConfirmed else { return .stale(try await service.load(before.record.id)) }
            return .conflict
        }
    }

    /// `body` applied to session `id` read and committed with no other writer in between.
    private func exclusively(_ id: String) async throws -> Committed {
        let (service, body, now) = (service, body, service.clock())
        typealias Outcome = Swift.Result<(Result, LoadedSession, SessionService<Step>.PreparedChange?), WebError>
        let outcome = try await service.store.exclusiveUpdate(id) { record -> ExclusiveChange<Outcome> in
            guard let record, !record.isDeleted, record.expiresAt > now else {
                return ExclusiveChange(
                    commit: nil, outcome: .failure(.notFound("this session does not exist or has expired")))
            }
            do throws(WebError) {
                var session: LoadedSession
                do throws(UnreadableSession) {
                    session = try service.decoded.session(from: record, decoder: service.decoder)
                } catch {
                    throw error.webError
                }
                let before = session
                let change = try await body(&session)
                guard change.commits else {
                    return ExclusiveChange(commit: nil, outcome: .success((change.result, session, nil)))
                }
                let prepared = try service.prepare(session, before: before, entries: change.entries)
                return ExclusiveChange(
                    commit: (prepared.commit.record, prepared.commit.history),
                    outcome: .success((change.result, prepared.session, prepared)))
            } catch {
                return ExclusiveChange(commit: nil, outcome: .failure(error))
            }
        }
        let (result, session, prepared) = try outcome.get()
        guard let prepared else {
            return (SessionService<Step>.UpdatedSession(result: result, session: session), nil, nil)
        }
        service.recordCommitted(prepared)
        return (
            SessionService<Step>.UpdatedSession(result: result, session: service.committed(prepared.commit, session)),
            prepared.commit, prepared.refusal
        )
    }
}
