import FlowStore
import PostgresNIO
import Synchronization

/// Every call to the database bounded in time, and the database's reachability (a circuit
/// breaker) that makes calls fail at once while it is unreachable.
extension PostgresSessionStore {
    /// Runs `body` for at most ``timeout``; any failure becomes a `StoreError`. The caller is
    /// answered when the time is up even if `body` cannot be cancelled (a query waiting for a
    /// connection while the database is down); `body` is then cancelled and left to finish.
    ///
    /// When a call finds the database unreachable (a lost connection, a refused one, the
    /// timeout), the calls still waiting for it are answered at once and their queries
    /// cancelled, and later calls fail at once while one at a time tries the database again
    /// (see ``Reachability``): under load, requests would otherwise each wait out the timeout,
    /// a step twice (it reads, then commits), and answer after their clients gave up.
    func bounded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws(StoreError) -> T {
        let limit: Duration
        switch reachability.admitCall() {
        case .refused: throw .unavailable("PostgreSQL is unreachable; trying again")
        case .normal: limit = timeout
        // A try while it is unreachable holds its session's lock: it gives up sooner.
        case .tryingAgain: limit = min(timeout, .seconds(1))
        }
        let answer = OnceContinuation<T>()
        let reachability = self.reachability
        let ticket = Ticket()
        defer { reachability.settled(ticket) }
        do {
            let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                answer.set(continuation)
                // A task of its own, so the caller can be answered at the deadline whatever the
                // query does: it runs on this thread until the query is sent.
                let work = Task.immediate {
                    do {
                        answer.resume(with: .success(try await body()))
                    } catch let error as PostgresTransactionError {
                        // A conflict or duplicate thrown inside a transaction comes back wrapped.
                        answer.resume(with: .failure((error.closureError as? StoreError) ?? error))
                    } catch {
                        answer.resume(with: .failure(error))
                    }
                }
                // The watchdog fails the call at its deadline: a timer of its own for every call
                // (a sleeping task) cost more CPU than the query.
                reachability.waits(ticket, until: .now + limit, limit: limit) { reason in
                    if answer.resume(with: .failure(reason)) { work.cancel() }
                }
            }
            reachability.answered()
            return value
        } catch let error as StoreError {
            reachability.answered()  // a conflict or a duplicate: the database answered
            throw error
        } catch {
            if Self.meansUnreachable(error) { reachability.foundUnreachable() } else { reachability.answered() }
            if let error = error as? Unreachable { throw .unavailable(error.description) }
            throw .unavailable("PostgreSQL: \(String(describing: error).split(separator: "\n").first ?? "")")
        }
    }

    /// Whether `error` says the database cannot be reached (rather than refusing a statement).
    static func meansUnreachable(_ error: any Error) -> Bool {
        switch error {
        case is Unreachable, is ChannelError, is IOError:
            return true
        case let error as PostgresError:
            // A prepared statement's errors come in PostgresNIO's older form.
            if case .connectionClosed = error { return true }
            return false
        case let error as PSQLError:
            return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed]
                .contains(error.code)
        case let error as PostgresTransactionError:
            return [error.beginError, error.closureError, error.commitError, error.rollbackError].contains {
                $0.map(meansUnreachable) ?? false
            }
        default:
            return false
        }
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

/// Whether the database is taken to be reachable (a circuit breaker): after a call found it
/// unreachable, the calls waiting for it are failed, and only one call at a time may try it,
/// at most every ``retryInterval``, until one gets an answer.
final class Reachability: Sendable {
    private enum State {
        case reachable
        case unreachable(tryingAgain: Bool, nextTry: ContinuousClock.Instant)
    }
    /// How a call may go to the database.
    enum Admission { case normal, tryingAgain, refused }
    private let state = Mutex(State.reachable)
    /// The least time between two tries while the database is unreachable.
    private let retryInterval = Duration.milliseconds(500)
    /// A call waiting for the database: its deadline, and what fails it.
    private struct Waiting {
        var deadline: ContinuousClock.Instant
        var limit: Duration
        var fail: @Sendable (Unreachable) -> Void
    }

    /// The calls waiting for the database, by ticket.
    private let waiting = Mutex<[ObjectIdentifier: Waiting]>([:])

    /// Notes the call of `ticket` waiting for the database until `deadline` (`limit` after it
    /// started), and what fails it.
    func waits(
        _ ticket: Ticket, until deadline: ContinuousClock.Instant, limit: Duration,
        failedBy fail: @escaping @Sendable (Unreachable) -> Void
    ) {
        waiting.withLock { $0[ObjectIdentifier(ticket)] = Waiting(deadline: deadline, limit: limit, fail: fail) }
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

    /// The call of `ticket` has its answer.
    func settled(_ ticket: Ticket) {
        _ = waiting.withLock { $0.removeValue(forKey: ObjectIdentifier(ticket)) }
    }

    /// Whether a call may go to the database now, and whether as the one trying it again.
    func admitCall() -> Admission {
        state.withLock { state in
            switch state {
            case .reachable:
                return .normal
            case .unreachable(let trying, let nextTry):
                guard !trying, ContinuousClock.now >= nextTry else { return .refused }
                state = .unreachable(tryingAgain: true, nextTry: nextTry)
                return .tryingAgain
            }
        }
    }

    /// A call got an answer from the database.
    func answered() {
        state.withLock { if case .unreachable = $0 { $0 = .reachable } }
    }

    /// A call found the database unreachable: the calls waiting for it fail now.
    func foundUnreachable() {
        state.withLock { $0 = .unreachable(tryingAgain: false, nextTry: .now + retryInterval) }
        let failing = waiting.withLock { waiting in
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        failing.forEach { $0.fail(.lostMeanwhile) }
    }
}

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
