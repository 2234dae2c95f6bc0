import FlowCore

/// A change to a session as the holder of the session's lock applies it, whatever its result's
/// type (see ``SessionLocks`` and ``SessionService/update(_:_:)``): its body applied to a copy
/// of the session, or the whole change committed by itself, and where its outcome goes. A class:
/// the changes are passed around in the lock's queue, and a copy of a reference is one count.
final class QueuedChange<Step: FlowStep>: Sendable {
    /// What applying a change's body came to.
    enum Application: Sendable {
        /// The body failed; the change's outcome holds the error.
        case failed
        /// The body changed nothing to commit.
        case unchanged
        /// The body records these entries (none, when it only saves).
        case changed([PendingEntry<Step>])
    }

    /// The session as the change's request read it.
    let known: LoadedSession
    /// Applies the change's body to the session, keeping the body's result for ``finish``.
    let apply: @Sendable (inout LoadedSession) async -> Application
    /// Applies and commits the change by itself (see ``OptimisticCommit``), and sets its outcome:
    /// the commit made, whose history is to fold.
    let commitAlone: @Sendable () async -> SessionCommit<Step>?
    /// Sets the outcome once the change is committed: the session as it left it, and the limit
    /// that refused the change, if one did.
    let finish: @Sendable (LoadedSession, LimitCrossing?) -> Void
    /// Sets the outcome: the change failed.
    let fail: @Sendable (WebError) -> Void

    /// A change of the session `known`, with what the holder of the lock calls.
    init(
        known: LoadedSession, apply: @escaping @Sendable (inout LoadedSession) async -> Application,
        commitAlone: @escaping @Sendable () async -> SessionCommit<Step>?,
        finish: @escaping @Sendable (LoadedSession, LimitCrossing?) -> Void,
        fail: @escaping @Sendable (WebError) -> Void
    ) {
        self.known = known
        self.apply = apply
        self.commitAlone = commitAlone
        self.finish = finish
        self.fail = fail
    }
}

/// Where a change keeps its outcome until its request takes it.
///
/// No lock of its own: the outcome is set by the task holding the session's lock and read by the
/// change's own task after that one resumed from ``SessionLocks/Queued/served()`` (or by the
/// holder itself), and a continuation's resumption orders the two.
final class ChangeOutcome<Step: FlowStep, Result: Sendable>: @unchecked Sendable {
    private enum State {
        case waiting
        /// The body's result, while the change waits to be committed.
        case applied(Result)
        case done(Swift.Result<SessionService<Step>.UpdatedSession<Result>, WebError>)
    }
    private var state = State.waiting

    /// Keeps the body's result until ``finish(_:refusal:)``.
    func applied(_ result: Result) { state = .applied(result) }

    /// The change stands with `session` (or failed at `refusal`, when a limit refused it).
    func finish(_ session: LoadedSession, refusal: LimitCrossing?) {
        guard case .applied(let result) = state else { return }
        state = .done(
            refusal.map { .failure($0.error) }
                ?? .success(SessionService<Step>.UpdatedSession(result: result, session: session)))
    }

    /// The change's outcome is `outcome`.
    func set(_ outcome: Swift.Result<SessionService<Step>.UpdatedSession<Result>, WebError>) {
        state = .done(outcome)
    }

    /// The outcome.
    func get() throws(WebError) -> SessionService<Step>.UpdatedSession<Result> {
        guard case .done(let outcome) = state else {
            throw .internalError("a change to a session was left without an outcome")
        }
        return try outcome.get()
    }
}
