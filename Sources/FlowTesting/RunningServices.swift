import Logging
import ServiceLifecycle

/// Runs `services` (a store's, a responder's) in the background while `body` runs, then shuts
/// them down gracefully, last first, and waits for them: what `FlowServerRuntime`'s
/// `ServiceGroup` does for a server process, for a test.
///
/// ```swift
/// let store = try PostgresSessionStore(url: url)
/// try await withRunningServices(store.services) {
///     try await store.prepare()
///     // … use the store
/// }
/// ```
public func withRunningServices<Result: Sendable>(
    _ services: [any Service], _ body: () async throws -> Result
) async throws -> Result {
    let group = ServiceGroup(services: services, logger: Logger(label: "FlowTesting.services"))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let result = try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
    }
}
