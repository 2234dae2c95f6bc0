import FlowStore
import PostgresNIO

/// Every call to the database bounded in time, and refused at once while the database is
/// unreachable (see ``Reachability``).
extension PostgresSessionStore {
    /// Runs `body` for at most ``timeout``; any failure becomes a `StoreError`. The caller is
    /// answered when the time is up even if `body` cannot be cancelled (a query waiting for a
    /// connection while the database is down); `body` is then cancelled and left to finish.
    ///
    /// When a call finds the database unreachable (a lost connection, a refused one, the
    /// timeout), the calls still waiting for it are answered at once and their queries
    /// cancelled, and later calls fail at once until the store's own try reaches the database
    /// again (see ``Reachability``): under load, requests would otherwise each wait out the
    /// timeout, a step twice (it reads, then commits), and answer after their clients gave up.
    func bounded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws(StoreError) -> T {
        guard let admitted = reachability.admission() else {
            throw .unavailable("PostgreSQL is unreachable; trying again")
        }
        do {
            return try await reachability.answer(within: timeout, admitted: admitted) {
                do {
                    return try await body()
                } catch let error as PostgresTransactionError {
                    // A conflict or duplicate thrown inside a transaction comes back wrapped.
                    throw (error.closureError as? StoreError) ?? error
                }
            }
        } catch let error as StoreError {
            throw error  // a conflict or a duplicate: the database answered
        } catch {
            if Self.meansUnreachable(error), reachability.foundUnreachable(now: .now, admitted: admitted),
                prepared.load(ordering: .relaxed)
            {
                logger.warning(
                    "PostgreSQL is unreachable (\(Self.reason(of: error))): calls fail at once, and the store tries it again every \(Reachability.retryInterval)"
                )
            }
            if let error = error as? Unreachable { throw .unavailable(error.description) }
            throw .unavailable("PostgreSQL: \(Self.firstLine(of: error))")
        }
    }

    /// The first line of `error`'s description.
    static func firstLine(of error: any Error) -> Substring {
        String(describing: error).split(separator: "\n").first ?? ""
    }

    /// What went wrong, for the log: PostgresNIO's errors describe themselves in a generic
    /// sentence, and keep their code and cause apart.
    static func reason(of error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(firstLine(of: error)) }
        guard let cause = error.underlying else { return "\(error.code)" }
        return cause is PSQLError ? reason(of: cause) : "\(error.code): \(firstLine(of: cause))"
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
