import Logging
import PostgresNIO
import Synchronization

/// The statements every step runs (read a session, commit it), prepared once on each connection
/// of the pool and executed by name from then on: a statement sent as text is parsed and planned
/// by the database on every call, which cost it more than running it.
///
/// Runs through PostgresNIO's prepared queries, whose rows are collected as they arrive (see
/// ``PostgresNIO/PostgresConnection/collectedRows(_:logger:)`` for why rows are never streamed).
final class PreparedStatements: Sendable {
    /// A statement the store prepares.
    enum Statement: Sendable, CaseIterable {
        /// A session's row by id: `$1` the id.
        case load
        /// Sessions' rows unless they are at the versions their callers hold: `$1` the ids, `$2`
        /// the versions held, one each. A row comes for each pair whose session exists: its
        /// columns, then the version held; at that version, the tree, app data and bookkeeping
        /// come back `NULL`, unread.
        case readings
        /// The version and times of sessions: `$1` the ids. A row for each session that exists.
        case stamps
        /// `flowserver_commit` (migration 3): the row replaced if at the expected version, its
        /// entries appended; answers 1, or 0 when the version did not match.
        case commit
        /// `flowserver_commit_many` (migration 5): several sessions' commits in one transaction;
        /// answers the numbers (from 1) of those made.
        case commitMany

        var sql: String {
            switch self {
            case .load:
                "SELECT \(PostgresSessionStore.sessionColumns) FROM sessions WHERE id = $1"
            case .readings:
                """
                SELECT s.id, s.version, CASE WHEN s.version = held.version THEN NULL ELSE s.tree END,
                CASE WHEN s.version = held.version THEN NULL ELSE s.app_data END, s.csrf_token, s.last_seq,
                CASE WHEN s.version = held.version THEN NULL ELSE s.extra END, s.created_at, s.last_used_at,
                s.expires_at, held.version
                FROM unnest($1::text[], $2::bigint[]) AS held(id, version) JOIN sessions s ON s.id = held.id
                """
            case .stamps:
                "SELECT id, version, last_used_at, expires_at FROM sessions WHERE id = ANY($1)"
            case .commit:
                "SELECT flowserver_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
            case .commitMany:
                "SELECT flowserver_commit_many($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
            }
        }
    }

    /// What is prepared on each open connection, by connection (held until it closes, so that
    /// its identity names no other): connections' ids are not unique, since each pool, made anew
    /// after an outage (see ``RenewablePool``), numbers its own from 0.
    private let prepared = Mutex<[ObjectIdentifier: Prepared]>([:])

    /// A connection, and what is prepared on it.
    private struct Prepared {
        var connection: PostgresConnection
        var statements: [Statement: PreparedQuery] = [:]
    }

    /// The rows of `statement` with `binds` on `connection`, as cells, preparing it there first
    /// if needed. Throws `CancellationError` instead of starting in a cancelled task.
    ///
    /// Results always come in binary form, but PostgresNIO 1.33 labels a prepared query's
    /// columns with the format of its preparation (text): the cells are labelled binary again.
    func rows(of statement: Statement, _ binds: [PostgresData], on connection: PostgresConnection) async throws
        -> [[PostgresCell]]
    {
        try Task.checkCancellation()
        let prepared = try await query(statement, on: connection)
        // Executed from the loop, so its rows have their consumer before they can arrive (see
        // `PostgresConnection.onEventLoop(_:)`).
        return try await connection.onEventLoop { _ in prepared.execute(binds) }.map { row in
            row.map { cell in
                var cell = cell
                cell.format = .binary
                return cell
            }
        }
    }

    private func query(_ statement: Statement, on connection: PostgresConnection) async throws -> PreparedQuery {
        let id = ObjectIdentifier(connection)
        if let found = prepared.withLock({ $0[id]?.statements[statement] }) { return found }
        // A leased connection runs one call at a time: nobody prepares on it meanwhile.
        let made = try await connection.prepare(query: statement.sql).get()
        let first = prepared.withLock { prepared in
            defer { prepared[id, default: Prepared(connection: connection)].statements[statement] = made }
            return prepared[id] == nil
        }
        if first {
            connection.closeFuture.whenComplete { [weak self] _ in
                _ = self?.prepared.withLock { $0.removeValue(forKey: id) }
            }
        }
        return made
    }
}
