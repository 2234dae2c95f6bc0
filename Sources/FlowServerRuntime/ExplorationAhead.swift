import FlowExplorer
import Synchronization

/// The exploration behind `/_inspector/graph` and the steps of `/public/openapi.yaml`, made once,
/// in the background, from the moment the server is ready to serve (`start()`): a server that
/// cannot start (its store unavailable) spends nothing on it and prints only why it stopped. A
/// request that asks before then starts it and waits for it.
final class ExplorationAhead: Sendable {
    private let explore: @Sendable () async throws -> ExplorationReport
    private let task = Mutex<Task<ExplorationReport, any Error>?>(nil)

    /// An exploration that `explore` makes when first started.
    init(_ explore: @escaping @Sendable () async throws -> ExplorationReport) {
        self.explore = explore
    }

    /// Starts the exploration if it has not started.
    func start() {
        _ = started()
    }

    /// The exploration's report, started now if it had not been.
    var report: ExplorationReport {
        get async throws { try await started().value }
    }

    private func started() -> Task<ExplorationReport, any Error> {
        task.withLock { task in
            if let task { return task }
            let made = Task.detached(priority: .background) { [explore] in try await explore() }
            task = made
            return made
        }
    }
}
