import Logging
import NIOCore
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
///
/// The query is sent from the connection's event loop (``onEventLoop(_:)``). Sent from another
/// thread, PostgresNIO writes it in one task of the loop and attaches the collecting in a
/// second; when the answer is read between the two, its rows wait for a consumer with the
/// connection's next read held, and a close of the connection then traps as above (seen once in
/// CI, in `outageWhileStreaming`).
extension PostgresConnection {
    /// The rows of `query`, all of them; throws `CancellationError` instead of starting the query
    /// in a cancelled task (a transaction given up on sends nothing more, and rolls back).
    func collectedRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try Task.checkCancellation()
        return try await onEventLoop { $0.query(query, logger: logger) }.rows
    }

    /// What `start` gives, started on the connection's event loop, so that whatever it attaches
    /// to the query's future is attached before the loop reads the answer. One task on the loop:
    /// the answer resumes the caller from there.
    func onEventLoop<Value: Sendable>(_ start: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<Value>)
        async throws -> Value
    {
        try await withCheckedThrowingContinuation { continuation in
            eventLoop.execute { start(self).whenComplete { continuation.resume(with: $0) } }
        }
    }
}

extension PostgresClient {
    /// The rows of `query` on a connection of the pool, all of them (see
    /// ``PostgresNIO/PostgresConnection/collectedRows(_:logger:)``).
    func collectedRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withConnection { connection in try await connection.collectedRows(query, logger: logger) }
    }
}
