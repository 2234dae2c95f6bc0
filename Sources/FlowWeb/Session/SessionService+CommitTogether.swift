import FlowCore
import FlowStore

extension SessionService {
    /// What committing changes together came to.
    enum CommittedTogether {
        /// Every change has its outcome; the last commit whose history is to fold.
        case committed(folding: SessionCommit<Step>?)
        /// Nothing was committed: the changes are to be committed one by one.
        case alone
    }

    /// What one of the changes committed together made.
    private enum Made {
        case failed
        case unchanged(LoadedSession)
        case committing(PreparedChange)
    }

    /// `changes` (two or more, of one session, in the order they asked for its lock) applied one
    /// after the other to the copy of the session this instance holds, each from where the one
    /// before left it, and stored in one commit (its version check at the copy's version, the
    /// record as the last change left it, every change's history entries). Each change is
    /// answered with the session as it left it, once the commit is stored.
    ///
    /// `.alone` when they must be committed one by one: this instance holds no copy as new as
    /// each change's request read, none of them commits, or the commit finds the copy stale.
    func commitTogether(_ changes: [QueuedChange<Step>]) async -> CommittedTogether {
        guard let id = changes.first?.known.record.id, let held = decoded.latest(id),
            changes.allSatisfy({ $0.known.isStored && $0.known.record.version <= held.record.version })
        else { return .alone }
        var session = held
        var made: [Made] = []
        for change in changes {
            session.client = change.known.client
            let before = session
            switch await change.apply(&session) {
            case .failed:
                session = before
                made.append(.failed)
            case .unchanged:
                made.append(.unchanged(session))
            case .changed(let entries):
                do throws(WebError) {
                    let prepared = try prepare(session, before: before, entries: entries)
                    session = Self.session(prepared.session, committedAs: prepared.commit)
                    made.append(.committing(prepared))
                } catch {
                    change.fail(error)
                    session = before
                    made.append(.failed)
                }
            }
        }
        let commits = made.compactMap { if case .committing(let prepared) = $0 { prepared } else { nil } }
        guard let last = commits.last else { return .alone }
        let entries = commits.flatMap { $0.commit.history }
        do {
            try await store.commit(last.commit.record, expectedVersion: held.record.version, entries: entries)
        } catch  where error.isConflict || error.isDuplicate {
            metrics?.recordCommitConflict()
            return .alone
        } catch {
            let failure = calls.failure(error)
            for change in changes { change.fail(failure) }
            return .committed(folding: nil)
        }
        calls.health.succeeded()
        metrics?.recordCommittedTogether(changes.count)
        for (change, made) in zip(changes, made) {
            switch made {
            case .failed:
                break
            case .unchanged(var session):
                session.isConfirmed = true  // the commit's version check proved the copy current
                change.finish(session, nil)
            case .committing(let prepared):
                recordCommitted(prepared)
                change.finish(committed(prepared.commit, prepared.session), prepared.refusal)
            }
        }
        return .committed(folding: commits.last { $0.commit.dropHistoryBefore != nil }?.commit)
    }
}
