import Logging
import PostgresNIO
import Synchronization

/// Keeps the history table compact under steady steps: once the entries this instance folded
/// away (`dropHistory(_:before:)`) reach a fifth of the table's entries (and at
/// least ``floor``), it vacuums the table on a connection of its own, so that new entries reuse
/// the room of the folded ones.
///
/// PostgreSQL's autovacuum uses the same fifth, but looks at each database once a minute
/// (`autovacuum_naptime`). Under steady steps a minute of folds is far more than the live
/// history: 16 sessions keeping their last 1000 entries each grew the table and its index to
/// 220 MB (more than the default `shared_buffers`), and each step cost the server and the
/// database more the longer it ran; the new pages the table grew by, written back by the kernel
/// 30 s later all at once, held up the commits behind them (Benchmarks/README.md, session 45).
///
/// `VACUUM (SKIP_LOCKED)` does not wait for another vacuum of the table (autovacuum's, or
/// another instance's). A role that does not own the table gets a warning from PostgreSQL and
/// nothing happens, as without this.
final class HistoryVacuum: Sendable {
    /// How often ``run(reachability:)`` looks at the count.
    static let checkInterval = Duration.seconds(1)

    /// The fewest folded entries worth a vacuum.
    private let floor: Int
    /// Entries folded since the last vacuum.
    private let folded = Atomic<Int>(0)
    /// Folded entries that start a vacuum: a fifth of the table's entries, or ``floor``.
    private let due: Atomic<Int>
    private let connection: BatchConnection
    private let logger: Logger

    /// A vacuum of the history table on `connection` after `floor` folded entries or more.
    init(floor: Int, connection: BatchConnection, logger: Logger) {
        self.floor = max(1, floor)
        self.due = Atomic(self.floor)
        self.connection = connection
        self.logger = logger
    }

    /// Counts entries folded away.
    func folded(_ count: Int) {
        folded.add(count, ordering: .relaxed)
    }

    /// Vacuums whenever enough entries were folded and the database is reachable, looking every
    /// ``checkInterval``, until cancelled.
    func run(reachability: Reachability) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.checkInterval)
            guard folded.load(ordering: .relaxed) >= due.load(ordering: .relaxed), reachability.admitsCalls else {
                continue
            }
            await vacuum()
        }
    }

    /// Vacuums the history table now, and learns from it how many entries the table holds.
    private func vacuum() async {
        let counted = folded.load(ordering: .relaxed)
        do {
            let entries = try await connection.withConnection { connection in
                _ = try await connection.collectedRows("VACUUM (SKIP_LOCKED) history", logger: self.logger)
                return try await connection.collectedRows(
                    "SELECT reltuples::bigint FROM pg_class WHERE oid = 'history'::regclass", logger: self.logger
                ).first?.decode(Int64.self) ?? 0
            }
            folded.subtract(counted, ordering: .relaxed)
            due.store(max(floor, Int(entries) / 5), ordering: .relaxed)
        } catch  where Task.isCancelled {
            return  // the store stops: its connections close under the vacuum
        } catch {
            // Tried again after as many folds once more (an outage also stops the looks until the
            // database answers).
            due.store(counted + floor, ordering: .relaxed)
            logger.warning("vacuuming the history table failed: \(PostgresSessionStore.reason(of: error))")
        }
    }
}
