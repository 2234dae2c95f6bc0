import Logging
import PostgresNIO

/// Every query of the store runs through these: a result's rows are collected on the event loop
/// as they arrive, never streamed to an async consumer.
///
/// PostgresNIO 1.33's row streams hold the connection's next read until their consumer asks for
/// more rows; if the database closes the connection meanwhile (a crash, a restart, a failover),
/// NIO delivers the outstanding reads anyway and `RowStreamStateMachine` traps, killing the
/// whole process (`PostgresStoreTests.outageWhileStreaming` reproduces it on the first outage).
/// Collecting asks for the next rows as soon as some arrive, so no read is ever held; the
/// store's results are small and were read into arrays anyway.
extension PostgresConnection {
    /// The rows of `query`, all of them; throws `CancellationError` instead of starting the query
    /// in a cancelled task (a transaction given up on sends nothing more, and rolls back).
    func collectedRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try Task.checkCancellation()
        return try await self.query(query, logger: logger).get().rows
    }
}

extension PostgresClient {
    /// The rows of `query` on a connection of the pool, all of them (see
    /// ``PostgresNIO/PostgresConnection/collectedRows(_:logger:)``).
    func collectedRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withConnection { connection in try await connection.collectedRows(query, logger: logger) }
    }
}
