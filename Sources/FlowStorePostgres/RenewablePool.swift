import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The store's connection pool, made anew when the database answers again after an outage.
///
/// PostgresNIO's pool tries again to connect after each failure, waiting 100 ms × 1.25 per
/// failure before the next try, up to a minute, and it goes on trying for as long as the
/// database is down, whether or not calls wait. So when the database came back, the pool's next
/// try could be a long way off. Session 41 measured this: after a 4 s outage, calls through the
/// pool kept failing for up to 1.4 s after the restart; after a 2 min outage, for 12.8 s. A
/// fresh pool connects at the first call. So once the store's own try (``Reachability``) reaches
/// the database, calls go to a new pool, and the old one is stopped.
final class RenewablePool: Sendable {
    /// One pool and what runs and stops it.
    final class Generation: Sendable {
        /// The pool.
        let client: PostgresClient
        private let running: AsyncStream<Void>
        private let runs: AsyncStream<Void>.Continuation
        private let retirement: AsyncStream<Void>
        private let retires: AsyncStream<Void>.Continuation

        fileprivate init(_ client: PostgresClient) {
            self.client = client
            (running, runs) = AsyncStream<Void>.makeStream()
            (retirement, retires) = AsyncStream<Void>.makeStream()
        }

        /// Runs the pool until ``retire()``, graceful shutdown or cancellation.
        fileprivate func run() async {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    // On into the client's `run()` in this task: it marks the client running before
                    // it first suspends, while the waiter of `started()` still has a task switch to
                    // make (a connection leased before logs a warning).
                    self.runs.finish()
                    await self.client.run()
                }
                for await _ in retirement {}
                group.cancelAll()
            }
        }

        /// Returns once the pool runs.
        func started() async {
            for await _ in running {}
        }

        /// Stops the pool: the calls on it fail, and its connections close.
        fileprivate func retire() { retires.finish() }
    }

    private let make: @Sendable () -> PostgresClient
    private let current: Mutex<Generation>
    private let made: AsyncStream<Generation>
    private let making: AsyncStream<Generation>.Continuation

    /// A pool of clients that `make` makes: the first made now, run by ``runAll()``.
    init(_ make: @escaping @Sendable () -> PostgresClient) {
        self.make = make
        let first = Generation(make())
        current = Mutex(first)
        (made, making) = AsyncStream<Generation>.makeStream()
        making.yield(first)
    }

    /// The pool that calls use now.
    var client: PostgresClient { current.withLock { $0.client } }

    /// The pool that calls use now, with what tells when it runs.
    var generation: Generation { current.withLock { $0 } }

    /// Makes a new pool for the calls from now on, and stops the one they used: answers the new
    /// one, to wait until it runs (``Generation/started()``).
    func renew() -> Generation {
        let fresh = Generation(make())
        let retired = current.withLock { current in
            defer { current = fresh }
            return current
        }
        making.yield(fresh)
        retired.retire()
        return fresh
    }

    /// Runs each pool, the first at once and each later one when ``renew()`` makes it, until
    /// graceful shutdown or cancellation.
    func runAll() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await generation in made {
                    group.addTask { await generation.run() }
                }
            }
        } onGracefulShutdown: {
            self.making.finish()
            self.current.withLock { $0 }.retire()
        }
    }
}
