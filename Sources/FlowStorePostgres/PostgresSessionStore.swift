import FlowStore
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Sessions in PostgreSQL (`--store postgres://user:pass@host:port/db`), for several instances
/// behind a load balancer: the same schema as the SQLite store, migrated at start, and
/// optimistic concurrency on each session's version, so two instances never both apply a step
/// on the same version.
///
/// Every call is bounded in time: while the database is unreachable, calls fail with an
/// unavailable `StoreError` (the web layer answers `503` with `Retry-After`), and the store
/// tries the database again by itself, four times a second, until it answers.
public final class PostgresSessionStore: SessionStamping {
    /// The connection pool, made anew after an outage.
    let pool: RenewablePool
    /// The connection pool that calls use now.
    var client: PostgresClient { pool.client }
    /// The statements of a step, prepared on each connection.
    let statements = PreparedStatements()
    /// Runs the connection pool, fails the calls that ran past their deadline, and tries an
    /// unreachable database: the store's service.
    private let runner: Runner
    let logger: Logger
    let timeout: Duration
    /// Whether the database answered lately: while it does not, calls fail at once.
    let reachability: Reachability
    /// Whether ``prepare()`` succeeded: until then, its error tells that the database is
    /// unreachable, and the log does not.
    let prepared = Atomic<Bool>(false)
    /// The conditional reads of held sessions, asked together.
    let readQueries = QueryBatches<HeldVersion, SessionReading>()
    /// The stamps of sessions, asked together.
    let stampQueries = QueryBatches<String, SessionStamp?>()
    /// The commits of steps, made together: one transaction in flight, and the commits asked for
    /// meanwhile wait for it and go together in the next (a second in flight made each smaller
    /// and cost the server more a step; see Benchmarks/README.md).
    let commitQueries = QueryBatches<PendingCommit, CommitOutcome>()
    /// The connections of those batches, one for each kind.
    let readConnection: BatchConnection
    let stampConnection: BatchConnection
    let commitConnection: BatchConnection
    /// The vacuums of the history table that its folds call for.
    let historyVacuum: HistoryVacuum

    /// A store on the database at `url`, not connected yet: run its ``services`` (the connection
    /// pool), then call ``prepare()``, which connects and migrates. Every call is bounded by
    /// `timeout`. Once the history entries this store folded away number `vacuumHistoryAfter` and a
    /// fifth of the history table's entries, it vacuums the table (see "The history table's
    /// upkeep" in the module's overview).
    ///
    /// - Throws: `StoreError` (unavailable) when `url` is not a PostgreSQL URL.
    public init(
        url: String, timeout: Duration = .seconds(3), vacuumHistoryAfter: Int = 50_000,
        logger: Logger = Logger(label: "FlowStorePostgres")
    ) throws(StoreError) {
        guard let components = URLComponents(string: url),
            ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, let user = components.user
        else {
            throw .unavailable(
                "the PostgreSQL URL must look like postgres://user:password@host:port/database, got \(url)")
        }
        let (port, database) = (
            components.port ?? 5432, components.path.isEmpty ? nil : String(components.path.dropFirst())
        )
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: components.password, database: database, tls: .disable)
        configuration.options.connectTimeout = .seconds(Int64(timeout.components.seconds))
        // Every connection of the store on one event loop: under load the batches keep the
        // database's traffic to a fraction of a query a request, which one thread carries, and
        // each loop more was one more thread for the others to wake (Benchmarks/README.md).
        // Requests do not run there: they resume on the global executor, so what they do after
        // a query spreads over every core.
        let loop = PostgresClient.defaultEventLoopGroup.next()
        pool = RenewablePool { [configuration] in
            PostgresClient(configuration: configuration, eventLoopGroup: loop, backgroundLogger: logger)
        }
        var single = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: components.password, database: database, tls: .disable)
        single.options.connectTimeout = .seconds(Int64(timeout.components.seconds))
        (readConnection, stampConnection, commitConnection) = (
            BatchConnection(single, on: loop, logger: logger),
            BatchConnection(single, on: loop, logger: logger),
            BatchConnection(single, on: loop, logger: logger)
        )
        let vacuumConnection = BatchConnection(single, on: loop, logger: logger)
        historyVacuum = HistoryVacuum(floor: vacuumHistoryAfter, connection: vacuumConnection, logger: logger)
        reachability = Reachability()
        var tries = single
        tries.options.connectTimeout = .seconds(Int64(Runner.tryLimit.components.seconds))
        runner = Runner(
            pool: pool, reachability: reachability, tries: BatchConnection(tries, on: loop, logger: logger),
            vacuum: historyVacuum, logger: logger,
            closing: [readConnection, stampConnection, commitConnection, vacuumConnection])
        self.logger = logger
        self.timeout = timeout
    }

    /// The connection pool, the watchdog of calls' deadlines and the tries of an unreachable
    /// database, as one service: nothing works until it runs, and it stops on graceful shutdown
    /// (run it before, and stop it after, what uses the store).
    public var services: [any Service] { [runner] }

    /// Connects and migrates the database, once the store's service runs (waiting for it to
    /// start).
    ///
    /// - Throws: `StoreError` (unavailable) with a one-line reason when the database cannot be
    ///   reached or migrated within the store's timeout.
    public func prepare() async throws(StoreError) {
        // The first query waits for the runner to reach the client's `run()`: a connection
        // leased before logs a warning (a new task can start late on a busy machine).
        await pool.generation.started()
        try await migrate()
        prepared.store(true, ordering: .relaxed)
    }

    /// What keeps the store working: the client's connection pool (see ``RenewablePool``); a
    /// watchdog that fails the calls past their deadline (see ``bounded(_:)``), ten times a
    /// second; and while the database is unreachable, a try of it every quarter second (see
    /// ``Reachability``). The batches' connections are closed when it stops.
    fileprivate final class Runner: Service {
        /// The most time a try of an unreachable database may take.
        static let tryLimit = Duration.seconds(1)
        private let pool: RenewablePool
        private let reachability: Reachability
        /// The connection the tries are made on, closed after each try that answers.
        private let tries: BatchConnection
        private let vacuum: HistoryVacuum
        private let logger: Logger
        private let closing: [BatchConnection]

        /// Runs `pool`, keeps the deadlines of `reachability`'s calls, tries the database on
        /// `tries` while it is unreachable, runs `vacuum`, and closes `closing` (and `tries`) when
        /// it stops.
        init(
            pool: RenewablePool, reachability: Reachability, tries: BatchConnection, vacuum: HistoryVacuum,
            logger: Logger, closing: [BatchConnection]
        ) {
            (self.pool, self.reachability, self.tries, self.vacuum) = (pool, reachability, tries, vacuum)
            (self.logger, self.closing) = (logger, closing + [tries])
        }

        func run() async {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.watch() }
                group.addTask { await self.vacuum.run(reachability: self.reachability) }
                await pool.runAll()  // until graceful shutdown or cancellation
                group.cancelAll()
                for connection in closing { await connection.close() }
            }
        }

        /// Fails the calls past their deadline, and starts the tries of an unreachable database,
        /// until cancelled.
        private func watch() async {
            await withDiscardingTaskGroup { tries in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                    reachability.expire(now: .now)
                    if reachability.startsTry(now: .now) { tries.addTask { await self.tryAgain() } }
                }
                tries.cancelAll()
            }
        }

        /// Tries the database on a connection of its own. When it answers, the calls from now on
        /// go to a new pool, once it runs, and then to the database.
        private func tryAgain() async {
            let (tries, logger) = (self.tries, self.logger)
            do {
                try await reachability.answer(within: Self.tryLimit) {
                    try await tries.withConnection { _ = try await $0.collectedRows("SELECT 1", logger: logger) }
                }
            } catch {
                reachability.tryFailed(now: .now)
                return
            }
            await tries.close()
            await pool.renew().started()
            let outage = reachability.reached()
            logger.notice(
                "PostgreSQL answers again after \(outage): the store's calls go to it on a new connection pool")
        }
    }

    /// Instances share the database.
    public var isShared: Bool { true }

    public func versions(of ids: [String]) async throws(StoreError) -> [String: Int] {
        guard !ids.isEmpty else { return [:] }
        return try await bounded {
            var versions: [String: Int] = [:]
            for row in try await self.client.collectedRows(
                "SELECT id, version FROM sessions WHERE id = ANY(\(ids))", logger: self.logger)
            {
                let (id, version) = try row.decode((String, Int64).self)
                versions[id] = Int(version)
            }
            return versions
        }
    }

    public func load(_ id: String) async throws(StoreError) -> SessionRecord? {
        try await bounded {
            try await self.client.withConnection { connection in
                try Self.record(from: await self.statements.rows(of: .load, [PostgresData(string: id)], on: connection))
            }
        }
    }

    /// Reads and locks the row, runs `change`, and commits what it decided in one transaction:
    /// other writers of the session wait for the row (in turn) instead of losing a race.
    public func exclusiveUpdate<Outcome: Sendable>(
        _ id: String, _ change: @escaping @Sendable (SessionRecord?) async -> ExclusiveChange<Outcome>
    ) async throws(StoreError) -> Outcome {
        try await bounded {
            try await self.client.withTransaction(logger: self.logger) { connection in
                let current = try Self.record(
                    from: await connection.collectedRows(
                        "SELECT \(unescaped: Self.sessionColumns) FROM sessions WHERE id = \(id) FOR UPDATE",
                        logger: self.logger
                    ).map(Array.init))
                let decided = await change(current)
                if let current, let commit = decided.commit {
                    let binds = Self.commitBinds(
                        commit.record, expectedVersion: current.version, entries: commit.entries)
                    let rows = try await self.statements.rows(of: .commit, binds, on: connection)
                    try Self.checkUpdated(rows, commit.record, current.version)
                }
                return decided.outcome
            }
        }
    }

    /// The columns of a session's row, in the order ``record(from:)`` reads them.
    static let sessionColumns =
        "id, version, tree, app_data, csrf_token, last_seq, extra, created_at, last_used_at, expires_at"

    /// The session in the first of `rows` (of ``sessionColumns``), if any.
    static func record(from rows: [[PostgresCell]]) throws -> SessionRecord? {
        guard let cells = rows.first else { return nil }
        guard cells.count == 10 else {
            throw StoreError.unavailable("PostgreSQL answered \(cells.count) session columns")
        }
        func bytes(_ index: Int) throws -> [UInt8] { Array(try cells[index].decode(ByteBuffer.self).readableBytesView) }
        return SessionRecord(
            id: try cells[0].decode(String.self), version: Int(try cells[1].decode(Int64.self)), tree: try bytes(2),
            appData: try bytes(3), csrfToken: try cells[4].decode(String.self),
            lastSeq: Int(try cells[5].decode(Int64.self)), extra: try bytes(6),
            createdAt: try cells[7].decode(Int64.self), lastUsedAt: try cells[8].decode(Int64.self),
            expiresAt: try cells[9].decode(Int64.self))
    }

    /// Inserts the session and its first entries in one statement (one round trip, atomic).
    public func create(_ record: SessionRecord, entries: [HistoryRecord]) async throws(StoreError) {
        try await bounded {
            let (seqs, bodies) = Self.columns(of: entries)
            let created = try await self.client.collectedRows(
                """
                WITH created AS (
                    INSERT INTO sessions (id, version, tree, app_data, csrf_token, last_seq, extra, created_at, last_used_at, expires_at)
                    VALUES (\(record.id), \(Int64(record.version)), \(ByteBuffer(bytes: record.tree)), \(ByteBuffer(bytes: record.appData)),
                            \(record.csrfToken), \(Int64(record.lastSeq)), \(ByteBuffer(bytes: record.extra)), \(record.createdAt),
                            \(record.lastUsedAt), \(record.expiresAt))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                ), appended AS (
                    INSERT INTO history (session, seq, entry)
                    SELECT created.id, entry.seq, entry.body FROM created, unnest(\(seqs)::bigint[], \(bodies)::bytea[]) AS entry(seq, body)
                    RETURNING 1
                )
                SELECT count(*) FROM created
                """, logger: self.logger)
            guard try created.first?.decode(Int64.self) == 1 else { throw StoreError.duplicate(session: record.id) }
        }
    }

    /// History entries as the two arrays a statement unnests: their seqs and their bodies.
    static func columns(of entries: [HistoryRecord]) -> ([Int64], [ByteBuffer]) {
        (entries.map { Int64($0.seq) }, entries.map { ByteBuffer(bytes: $0.entry) })
    }

    public func history(_ id: String, after: Int, limit: Int) async throws(StoreError) -> [HistoryRecord] {
        try await bounded {
            let rows = try await self.client.collectedRows(
                "SELECT seq, entry FROM history WHERE session = \(id) AND seq > \(Int64(after)) ORDER BY seq LIMIT \(Int64(max(0, limit)))",
                logger: self.logger)
            return try rows.map { row in
                let (seq, entry) = try row.decode((Int64, ByteBuffer).self)
                return HistoryRecord(seq: Int(seq), entry: Array(entry.readableBytesView))
            }
        }
    }

    public func delete(_ id: String) async throws(StoreError) {
        try await bounded {
            _ = try await self.client.collectedRows("DELETE FROM sessions WHERE id = \(id)", logger: self.logger)
        }
    }

    /// Deletes the session's entries before `before`, from its oldest entry on, and counts them
    /// toward the store's next vacuum of the table.
    ///
    /// The lower bound is what keeps a fold's cost from growing: the delete alone runs as a bitmap
    /// scan, which visits every entry the earlier folds deleted (until a vacuum removes them) and
    /// never marks them gone in the index, so each fold cost more than the one before (session 40:
    /// 0.4 to 3.9 ms in 25 s of steps on 16 sessions). The oldest entry is found by a plain index
    /// scan, which marks the dead entries it passes, so that the next ones skip them.
    public func dropHistory(_ id: String, before: Int) async throws(StoreError) {
        let dropped = try await bounded {
            try await self.client.collectedRows(
                """
                WITH dropped AS (
                    DELETE FROM history WHERE session = \(id) AND seq < \(Int64(before))
                    AND seq >= (SELECT oldest.seq FROM history oldest WHERE oldest.session = \(id) ORDER BY oldest.seq LIMIT 1)
                    RETURNING 1)
                SELECT count(*) FROM dropped
                """, logger: self.logger
            ).first?.decode(Int64.self) ?? 0
        }
        historyVacuum.folded(Int(dropped))
    }

    public func purgeExpired(now: Int64, limit: Int) async throws(StoreError) -> Int {
        try await bounded {
            let purged = try await self.client.collectedRows(
                "DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at < \(now) LIMIT \(Int64(limit))) RETURNING id",
                logger: self.logger
            ).count
            _ = try await self.client.collectedRows(
                "DELETE FROM quarantine WHERE (id, version) IN (SELECT id, version FROM quarantine WHERE kept_until < \(now) LIMIT \(Int64(limit)))",
                logger: self.logger)
            return purged
        }
    }

    public func liveCount(now: Int64) async throws(StoreError) -> Int {
        try await bounded {
            let rows = try await self.client.collectedRows(
                "SELECT COUNT(*) FROM sessions WHERE expires_at >= \(now) AND version > 0", logger: self.logger)
            return try Int(rows.first?.decode(Int64.self) ?? 0)
        }
    }

    public func sessionSecret(proposing proposed: [UInt8]) async throws(StoreError) -> [UInt8] {
        try await bounded {
            // One statement: the row inserted, or the one another instance inserted first.
            let rows = try await self.client.collectedRows(
                """
                WITH inserted AS (
                    INSERT INTO settings (name, value) VALUES ('session-secret', \(ByteBuffer(bytes: proposed)))
                    ON CONFLICT (name) DO NOTHING RETURNING value)
                SELECT value FROM inserted UNION ALL SELECT value FROM settings WHERE name = 'session-secret'
                """,
                logger: self.logger)
            guard let value = try rows.first?.decode(ByteBuffer.self) else {
                throw StoreError.unavailable("PostgreSQL kept no session secret")
            }
            return Array(value.readableBytesView)
        }
    }
}
