import Synchronization

/// Whether the database is taken to be reachable (a circuit breaker), and the deadlines of the
/// calls waiting for it.
///
/// When a call finds the database unreachable, the calls waiting for it fail at once, and so do
/// later calls until the store's own try reaches the database again. Those tries are made by the
/// store's service, at most every ``retryInterval`` and one at a time, on a connection of their
/// own (see `PostgresSessionStore.Runner`). Calls never try themselves: a call that went through
/// the pool while the database was down waited for the pool's next connection try, which could be
/// a long way off (see ``RenewablePool``).
final class Reachability: Sendable {
    private enum State {
        case reachable
        /// Since when, when the next try may start, and whether one runs.
        case unreachable(since: ContinuousClock.Instant, nextTry: ContinuousClock.Instant, trying: Bool)
    }
    /// The state, and how many times the database was found unreachable: calls admitted before
    /// the last of those went to a pool that may since have been stopped.
    private let state = Mutex((state: State.reachable, outages: 0))
    /// The least time between two tries while the database is unreachable.
    static let retryInterval = Duration.milliseconds(250)

    /// A call waiting for the database: its deadline, and what fails it.
    private struct Waiting {
        var deadline: ContinuousClock.Instant
        var limit: Duration
        var fail: @Sendable (Unreachable) -> Void
    }

    /// The calls waiting for the database, by ticket.
    private let waiting = Mutex<[ObjectIdentifier: Waiting]>([:])

    /// How many calls wait for the database (for tests).
    var waitingCount: Int { waiting.withLock { $0.count } }

    /// When a call was let through to the database: between which two outages.
    struct Admission: Equatable, Sendable {
        fileprivate let outagesBefore: Int
    }

    /// Whether calls may go to the database now: their ``Admission`` if so, `nil` if not.
    func admission() -> Admission? {
        state.withLock { guarded in
            guard case .reachable = guarded.state else { return nil }
            return Admission(outagesBefore: guarded.outages)
        }
    }

    /// Whether calls may go to the database now (for tests).
    var admitsCalls: Bool { admission() != nil }

    /// A call found the database unreachable, `now`: the calls waiting for it fail now. `true`
    /// when the database was taken to be reachable until then.
    ///
    /// A call `admitted` before an earlier outage says nothing of the database now: it may have
    /// failed because the pool it went to was stopped when the database came back. Its failure
    /// changes nothing.
    @discardableResult
    func foundUnreachable(now: ContinuousClock.Instant, admitted: Admission? = nil) -> Bool {
        let found = state.withLock { guarded in
            guard case .reachable = guarded.state else { return false }
            if let admitted, admitted.outagesBefore != guarded.outages { return false }
            guarded.state = .unreachable(since: now, nextTry: now + Self.retryInterval, trying: false)
            guarded.outages += 1
            return true
        }
        guard found else { return false }
        let failing = waiting.withLock { waiting in
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        failing.forEach { $0.fail(.lostMeanwhile) }
        return true
    }

    /// Whether a try of the database should start now: `true` (and the try is running from now
    /// on) while it is unreachable, no try runs, and the last ended ``retryInterval`` ago.
    func startsTry(now: ContinuousClock.Instant) -> Bool {
        state.withLock { guarded in
            guard case .unreachable(let since, let nextTry, false) = guarded.state, now >= nextTry else { return false }
            guarded.state = .unreachable(since: since, nextTry: nextTry, trying: true)
            return true
        }
    }

    /// The try did not reach the database, `now`: the next may start ``retryInterval`` later.
    func tryFailed(now: ContinuousClock.Instant) {
        state.withLock { guarded in
            guard case .unreachable(let since, _, _) = guarded.state else { return }
            guarded.state = .unreachable(since: since, nextTry: now + Self.retryInterval, trying: false)
        }
    }

    /// The try reached the database: calls go to it again. Answers how long it was unreachable.
    func reached() -> Duration {
        state.withLock { guarded in
            defer { guarded.state = .reachable }
            guard case .unreachable(let since, _, _) = guarded.state else { return .zero }
            return .now - since
        }
    }

    /// What `body` answers within `limit`; `Unreachable` when the time is up (or when a call found
    /// the database unreachable meanwhile), even if `body` cannot be cancelled (a query waiting
    /// for a connection while the database is down): `body` is then cancelled and left to finish.
    /// ``expire(now:)`` keeps the time.
    ///
    /// A call `admitted` before the database was last found unreachable fails at once with
    /// ``Unreachable/lostMeanwhile``, as it would have had it waited then.
    func answer<T: Sendable>(
        within limit: Duration, admitted: Admission? = nil, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let answer = OnceContinuation<T>()
        let ticket = Ticket()
        defer { settled(ticket) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            answer.set(continuation)
            // A task of its own, so the caller can be answered at the deadline whatever the
            // query does: it runs on this thread until the query is sent.
            let work = Task.immediate {
                do {
                    answer.resume(with: .success(try await body()))
                } catch {
                    answer.resume(with: .failure(error))
                }
            }
            // The watchdog fails the call at its deadline: a timer of its own for every call
            // (a sleeping task) cost more CPU than the query.
            let fail: @Sendable (Unreachable) -> Void = { reason in
                if answer.resume(with: .failure(reason)) { work.cancel() }
            }
            waits(ticket, until: .now + limit, limit: limit, failedBy: fail)
            // An outage found between the admission and the line above failed the calls
            // waiting then, without this one.
            if let admitted, admitted != admission() { fail(.lostMeanwhile) }
        }
    }

    /// Notes the call of `ticket` waiting for the database until `deadline` (`limit` after it
    /// started), and what fails it.
    private func waits(
        _ ticket: Ticket, until deadline: ContinuousClock.Instant, limit: Duration,
        failedBy fail: @escaping @Sendable (Unreachable) -> Void
    ) {
        waiting.withLock { $0[ObjectIdentifier(ticket)] = Waiting(deadline: deadline, limit: limit, fail: fail) }
    }

    /// The call of `ticket` has its answer.
    private func settled(_ ticket: Ticket) {
        _ = waiting.withLock { $0.removeValue(forKey: ObjectIdentifier(ticket)) }
    }

    /// Fails the calls whose deadline passed.
    func expire(now: ContinuousClock.Instant) {
        let expired = waiting.withLock { waiting -> [Waiting] in
            let late = waiting.filter { $0.value.deadline <= now }
            for key in late.keys { waiting.removeValue(forKey: key) }
            return Array(late.values)
        }
        for call in expired { call.fail(.timedOut(call.limit)) }
    }
}

/// Why a call got no answer from the database.
enum Unreachable: Error, CustomStringConvertible {
    case timedOut(Duration)
    case lostMeanwhile

    var description: String {
        switch self {
        case .timedOut(let limit): "PostgreSQL did not answer within \(limit)"
        case .lostMeanwhile: "PostgreSQL became unreachable"
        }
    }
}

/// A call in flight, by identity.
final class Ticket: Sendable {}

/// A continuation resumed by whichever comes first: the call's answer, or its failure.
final class OnceContinuation<T: Sendable>: Sendable {
    private let state = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func set(_ continuation: CheckedContinuation<T, any Error>) { state.withLock { $0 = continuation } }

    /// Resumes if nobody did yet; `true` when this call resumed.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        guard
            let continuation = state.withLock({ current -> CheckedContinuation<T, any Error>? in
                defer { current = nil }
                return current
            })
        else { return false }
        continuation.resume(with: result)
        return true
    }
}
