import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A connection of its own for one kind of batched query, which `QueryBatches` sends one at a
/// time: no lease from the pool for each query (the pool's bookkeeping of a lease woke a thread
/// of the global executor every time). Connected when first used, and again after a failure
/// other than the database refusing a statement, or when a query given up on at its deadline
/// still holds it.
final class BatchConnection: Sendable {
    private let configuration: PostgresConnection.Configuration
    private let loop: any EventLoop
    private let logger: Logger
    /// The id of the next connection made: from the largest down, where the pool's ids (from 0
    /// up) never reach, so that each names one connection in the logs.
    private static let nextID = Atomic<Int>(.max)
    private struct State {
        var connection: PostgresConnection?
        /// Whether a query runs on `connection`.
        var busy = false
    }
    private let current = Mutex(State())

    /// A connection to the database of `configuration` on `loop`, not connected yet.
    init(_ configuration: PostgresConnection.Configuration, on loop: any EventLoop, logger: Logger) {
        self.configuration = configuration
        self.loop = loop
        self.logger = logger
    }

    /// Runs `body` on the connection, connecting first if needed. The caller runs one `body` at
    /// a time.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let (open, abandoned) = current.withLock { state -> (PostgresConnection?, PostgresConnection?) in
            guard let connection = state.connection, !connection.isClosed, !state.busy else {
                defer { state = State() }
                return (nil, state.connection)
            }
            state.busy = true
            return (connection, nil)
        }
        try? await abandoned?.close()
        let connection: PostgresConnection
        if let open {
            connection = open
        } else {
            connection = try await PostgresConnection.connect(
                on: loop, configuration: configuration, id: Self.nextID.subtract(1, ordering: .relaxed).oldValue,
                logger: logger)
            current.withLock { $0 = State(connection: connection, busy: true) }
        }
        do {
            let result = try await body(connection)
            current.withLock { if $0.connection === connection { $0.busy = false } }
            return result
        } catch {
            let keeps = PostgresSessionStore.isRefusal(error)
            current.withLock { state in
                guard state.connection === connection else { return }
                // Lost, or cancelled mid-query: the next call connects anew.
                state = keeps ? State(connection: connection) : State()
            }
            if !keeps { try? await connection.close() }
            throw error
        }
    }

    /// Closes the connection, if open.
    func close() async {
        let open = current.withLock { state in
            defer { state = State() }
            return state.connection
        }
        try? await open?.close()
    }
}
