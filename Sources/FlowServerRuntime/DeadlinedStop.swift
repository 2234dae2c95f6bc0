import Logging
import ServiceLifecycle

/// A service (the app's `FlowWebService`) whose graceful shutdown is logged and armed with the
/// process's last resort, ``StopDeadline``: the server's grace period and five seconds more.
struct DeadlinedStop: Service {
    let service: any Service
    let limit: Duration
    let name: String
    let logger: Logger

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await service.run()
        } onGracefulShutdown: { [logger, limit, name] in
            logger.info("stopping")
            StopDeadline.arm(after: limit, name: name)
        }
    }
}
