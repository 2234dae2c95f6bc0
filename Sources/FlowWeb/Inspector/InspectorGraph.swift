import Synchronization

/// The app's navigation graph for the inspector, made once by the configured maker on the first
/// request that needs it; every request meanwhile waits for the same making.
final class InspectorGraph: Sendable {
    private let make: (@Sendable () async throws -> FlowGraph)?
    private let making = Mutex<Task<FlowGraph, any Error>?>(nil)

    init(_ make: (@Sendable () async throws -> FlowGraph)?) { self.make = make }

    /// The graph; `nil` when no maker is configured.
    ///
    /// - Throws: what the maker threw (the next request tries again).
    func value() async throws -> FlowGraph? {
        guard let make else { return nil }
        let task = making.withLock { task in
            if let task { return task }
            // Exploring takes seconds of CPU: on the global executor, never on the executor a
            // request prefers (a store's event loop, whose I/O it would hold up).
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
