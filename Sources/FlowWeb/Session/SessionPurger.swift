import FlowStore
import Logging
import ServiceLifecycle

/// Deletes expired sessions from the store in bounded batches, in the background: a service
/// (swift-service-lifecycle) that ``FlowWebService`` runs beside the server.
///
/// ```swift
/// let purger = SessionPurger(store: store, every: .seconds(60))
/// let group = ServiceGroup(services: store.services + [purger], logger: logger)
/// ```
public struct SessionPurger: Service {
    let store: any SessionStore
    let interval: Duration
    let batchSize: Int
    let clock: @Sendable () -> Int64
    let logger: Logger

    /// A purger that looks for expired sessions every `interval`, deleting up to `batchSize` at a
    /// time until none is left.
    public init(
        store: any SessionStore, every interval: Duration = .seconds(60), batchSize: Int = 500,
        logger: Logger = Logger(label: "FlowWeb.purge"),
        clock: @escaping @Sendable () -> Int64 = SessionClock.nowMilliseconds
    ) {
        self.store = store
        self.interval = interval
        self.batchSize = batchSize
        self.logger = logger
        self.clock = clock
    }

    /// Purges once: every expired session, batch after batch. Returns how many went.
    @discardableResult
    public func purgeOnce() async throws(StoreError) -> Int {
        var total = 0
        while true {
            let purged = try await store.purgeExpired(now: clock(), limit: batchSize)
            total += purged
            if purged < batchSize { return total }
            await Task.yield()
        }
    }

    /// Purges every `interval` until graceful shutdown or cancellation; store failures are logged
    /// and retried next time.
    public func run() async {
        await cancelWhenGracefulShutdown { [self] in await purgeUntilCancelled() }
    }

    private func purgeUntilCancelled() async {
        while !Task.isCancelled {
            do {
                let purged = try await purgeOnce()
                if purged > 0 { logger.info("purged expired sessions", metadata: ["count": "\(purged)"]) }
            } catch {
                logger.warning("purging expired sessions failed: \(error)")
            }
            try? await Task.sleep(for: interval)
        }
    }
}
