import Synchronization

/// A value made once, on the first request that needs it, by an async maker that may take
/// seconds (the inspector's navigation graph, the app's OpenAPI document); every request meanwhile
/// waits for the same making, and a failed making is tried again by the next request.
final class MadeOnce<Value: Sendable>: Sendable {
    private let make: @Sendable () async throws -> Value
    private let making = Mutex<Task<Value, any Error>?>(nil)

    init(_ make: @escaping @Sendable () async throws -> Value) { self.make = make }

    /// The value.
    ///
    /// - Throws: what the maker threw.
    func value() async throws -> Value {
        let make = make
        let task = making.withLock { task in
            if let task { return task }
            // On the global executor, never on the executor a request prefers (a store's event
            // loop, whose I/O a long making would hold up).
            let started = Task(executorPreference: globalConcurrentExecutor) { try await make() }
            task = started
            return started
        }
        do {
            return try await task.value
        } catch {
            making.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }
}
