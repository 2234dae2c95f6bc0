import GRDB
import ServiceLifecycle

/// Copies an SQLite store's write-ahead log into its database file off the commit path, and
/// lets the log start over once it has grown past a size.
///
/// SQLite's own automatic checkpoint runs inside the commit that fills the log past a thousand
/// pages, and every commit queued behind the one writer waits for it (at 64 concurrent steps, a
/// few milliseconds added to one request in seven). Here a connection of its own copies the log
/// every `interval` (a PASSIVE checkpoint, which waits for no one). Such copies alone never let
/// the log start over while commits keep coming, as some frames are always newer than the last
/// copy; so when the log holds `restartFrames` frames or more, one more checkpoint runs on the
/// writer's queue, where nothing can append meanwhile: it copies only the frames the background
/// copy missed, and the next commit then writes the log from its start.
///
/// While nothing is committed the copies slow down, to four a second (or `interval`, if longer).
/// Checkpoints that keep failing are logged (see ``CheckpointFailureLog``).
///
/// A service (swift-service-lifecycle): it runs until graceful shutdown or cancellation; the
/// database's last connection to close copies what is left.
struct WALCheckpointer: Service {
    private let pool: DatabasePool
    private let connection: DatabaseQueue
    private let interval: Duration
    private let restartFrames: Int
    private let failures: CheckpointFailureLog

    /// A checkpointer of `pool`'s database, whose file is at `path`, telling `failures` how each
    /// checkpoint went.
    init(pool: DatabasePool, path: String, interval: Duration, restartFrames: Int, failures: CheckpointFailureLog)
        throws
    {
        self.pool = pool
        connection = try DatabaseQueue(path: path)
        self.interval = interval
        self.restartFrames = restartFrames
        self.failures = failures
    }

    func run() async {
        await cancelWhenGracefulShutdown { [self] in await checkpointUntilCancelled() }
    }

    private func checkpointUntilCancelled() async {
        var failures = failures
        var pause = interval
        var lastFrames = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: pause)
            guard !Task.isCancelled else { return }
            let log: (walFrameCount: Int, checkpointedFrameCount: Int)
            do {
                log = try await connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                if log.walFrameCount >= restartFrames {
                    _ = try await pool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                }
                failures.succeeded(at: .now)
            } catch {
                failures.failed(error, at: .now)
                pause = interval
                continue
            }
            let idle = log.walFrameCount == lastFrames && log.checkpointedFrameCount == log.walFrameCount
            pause = idle ? min(pause * 2, max(interval, .milliseconds(250))) : interval
            lastFrames = log.walFrameCount
        }
    }
}
