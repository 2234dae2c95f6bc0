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
/// unavailable `StoreError` (the web layer answers `503` with `Retry-After`) and the pool
/// reconnects by itself when the database is back.
public final class PostgresSessionStore: SessionStamping {
    let client: PostgresClient
    /// The statements of a step, prepared on each connection.
    let statements = PreparedStatements()
    /// Runs the connection pool and fails the calls that ran past their deadline: the store's
    /// service.
    private let runner: Runner
    let logger: Logger
    private let timeout: Duration
    /// Whether the database answered lately: while it does not, calls fail at once.
    private let reachability: Reachability
    /// The pool's event loops as executors, and which one the next request prefers.
    private let executors: [EventLoopTaskExecutor]
    private let nextExecutor = Atomic<Int>(0)
    /// The conditional reads of held sessions, asked together.
    let readQueries = QueryBatches<HeldVersion, SessionReading>()
    /// The stamps of sessions, asked together.
    let stampQueries = QueryBatches<String, SessionStamp?>()
    /// The commits of steps, made together.
    let commitQueries = QueryBatches<PendingCommit, CommitOutcome>()
    /// The connections of those batches, one each.
    let readConnection: BatchConnection
    let stampConnection: BatchConnection
    let commitConnection: BatchConnection

    /// A store on the database at `url`, not connected yet: run its ``services`` (the connection
    /// pool), then call ``prepare()``, which connects and migrates. Every call is bounded by
    /// `timeout`.
    ///
    /// - Throws: `StoreError` (unavailable) when `url` is not a PostgreSQL URL.
    public init(url: String, timeout: Duration = .seconds(3), logger: Logger = Logger(label: "FlowStorePostgres"))
        throws(StoreError)
    {
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
        let loops = PostgresClient.defaultEventLoopGroup
        client = PostgresClient(configuration: configuration, eventLoopGroup: loops, backgroundLogger: logger)
        executors = loops.makeIterator().map(EventLoopTaskExecutor.init)
        var single = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: components.password, database: database, tls: .disable)
        single.options.connectTimeout = .seconds(Int64(timeout.components.seconds))
        (readConnection, stampConnection, commitConnection) = (
            BatchConnection(single, on: loops.next(), logger: logger),
            BatchConnection(single, on: loops.next(), logger: logger),
            BatchConnection(single, on: loops.next(), logger: logger)
        )
        reachability = Reachability()
        runner = Runner(
            client: client, reachability: reachability, closing: [readConnection, stampConnection, commitConnection])
        self.logger = logger
        self.timeout = timeout
    }

    /// The connection pool and the watchdog of calls' deadlines, as one service: nothing works
    /// until it runs, and it stops on graceful shutdown (run it before, and stop it after, what
    /// uses the store).
    public var services: [any Service] { [runner] }

    /// Connects and migrates the database, once the store's service runs (waiting for it to
    /// start).
    ///
    /// - Throws: `StoreError` (unavailable) with a one-line reason when the database cannot be
    ///   reached or migrated within the store's timeout.
    public func prepare() async throws(StoreError) {
        // The first query waits for the runner to reach the client's `run()`: a connection
        // leased before logs a warning (a new task can start late on a busy machine).
        await runner.started()
        try await migrate()
    }

    /// What keeps the store working: the client's connection pool, and a watchdog that fails the
    /// calls past their deadline (see ``bounded(_:)``), ten times a second; the batches'
    /// connections are closed when it stops.
    fileprivate final class Runner: Service {
        private let client: PostgresClient
        private let reachability: Reachability
        private let closing: [BatchConnection]
        private let startedStream: AsyncStream<Void>
        private let starting: AsyncStream<Void>.Continuation

        init(client: PostgresClient, reachability: Reachability, closing: [BatchConnection]) {
            self.client = client
            self.reachability = reachability
            self.closing = closing
            (startedStream, starting) = AsyncStream<Void>.makeStream()
        }

        /// Returns once ``run()`` has started.
        func started() async {
            for await _ in startedStream {}
        }

        func run() async {
            let reachability = reachability
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(100))
                        reachability.expire(now: .now)
                    }
                }
                // On into the client's `run()` in this task: it marks the client running before it
                // first suspends, while the waiter of `started()` still has a task switch to make.
                starting.finish()
                await client.run()  // until graceful shutdown or cancellation
                group.cancelAll()
                for connection in closing { await connection.close() }
            }
        }
    }

    private func migrate() async throws(StoreError) {
        try await bounded {
            try await self.client.withTransaction(logger: self.logger) { connection in
                _ = try await connection.collectedRows("SELECT pg_advisory_xact_lock(424242)", logger: self.logger)
                _ = try await connection.collectedRows(
                    "CREATE TABLE IF NOT EXISTS flowserver_migrations (version INTEGER PRIMARY KEY)",
                    logger: self.logger)
                let applied = Set(
                    try await connection.collectedRows("SELECT version FROM flowserver_migrations", logger: self.logger)
                        .map { try $0.decode(Int.self) })
                for (version, statements) in Self.migrations where !applied.contains(version) {
                    for statement in statements {
                        _ = try await connection.collectedRows(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                    }
                    _ = try await connection.collectedRows(
                        "INSERT INTO flowserver_migrations (version) VALUES (\(version))", logger: self.logger)
                }
            }
        }
    }

    /// The schema, one migration per version (never edit a shipped one: add another).
    static let migrations: [(Int, [String])] = [
        (
            1,
            [
                """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY, version BIGINT NOT NULL, tree BYTEA NOT NULL, app_data BYTEA NOT NULL,
                    csrf_token TEXT NOT NULL, last_seq BIGINT NOT NULL, extra BYTEA NOT NULL,
                    created_at BIGINT NOT NULL, last_used_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
                """
                CREATE TABLE history (
                    session TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE, seq BIGINT NOT NULL, entry BYTEA NOT NULL,
                    PRIMARY KEY (session, seq))
                """,
            ]
        ),
        (2, ["CREATE TABLE settings (name TEXT PRIMARY KEY, value BYTEA NOT NULL)"]),
        // A commit as a function: PL/pgSQL keeps the plans of its statements for the connection's
        // life, where a statement sent each time is parsed and planned each time.
        (
            3,
            [
                """
                CREATE FUNCTION flowserver_commit(
                    p_id TEXT, p_expected BIGINT, p_version BIGINT, p_tree BYTEA, p_app_data BYTEA, p_csrf_token TEXT,
                    p_last_seq BIGINT, p_extra BYTEA, p_created_at BIGINT, p_last_used_at BIGINT, p_expires_at BIGINT,
                    p_seqs BIGINT[], p_bodies BYTEA[]) RETURNS BIGINT LANGUAGE plpgsql AS $$
                BEGIN
                    UPDATE sessions SET version = p_version, tree = p_tree, app_data = p_app_data,
                        csrf_token = p_csrf_token, last_seq = p_last_seq, extra = p_extra, created_at = p_created_at,
                        last_used_at = p_last_used_at, expires_at = p_expires_at
                    WHERE id = p_id AND version = p_expected;
                    IF NOT FOUND THEN
                        RETURN 0;
                    END IF;
                    INSERT INTO history (session, seq, entry) SELECT p_id, entry.seq, entry.body
                    FROM unnest(p_seqs, p_bodies) AS entry(seq, body);
                    RETURN 1;
                END
                $$
                """
            ]
        ),
        (
            4,
            [
                """
                CREATE TABLE quarantine (
                    id TEXT NOT NULL, version BIGINT NOT NULL, tree BYTEA NOT NULL, app_data BYTEA NOT NULL,
                    csrf_token TEXT NOT NULL, last_seq BIGINT NOT NULL, extra BYTEA NOT NULL,
                    created_at BIGINT NOT NULL, last_used_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                    history BYTEA NOT NULL, reason TEXT NOT NULL, cause TEXT NOT NULL, written_by TEXT,
                    quarantined_at BIGINT NOT NULL, kept_until BIGINT NOT NULL,
                    PRIMARY KEY (id, version))
                """,
                "CREATE INDEX quarantine_by_expiry ON quarantine (kept_until)",
            ]
        ),
        // Commits of several sessions in one transaction (one flush of the log for all): each
        // commit as `flowserver_commit` does it, its entries (`p_entry_commits` names each one's
        // commit, from 1) appended when its row was replaced; answers the numbers of the commits
        // made. Callers order the commits by id, so that two instances lock rows in one order.
        (
            5,
            [
                """
                CREATE FUNCTION flowserver_commit_many(
                    p_ids TEXT[], p_expected BIGINT[], p_versions BIGINT[], p_trees BYTEA[], p_app_data BYTEA[],
                    p_csrf_tokens TEXT[], p_last_seqs BIGINT[], p_extras BYTEA[], p_created_at BIGINT[],
                    p_last_used_at BIGINT[], p_expires_at BIGINT[], p_entry_commits INTEGER[], p_entry_seqs BIGINT[],
                    p_entry_bodies BYTEA[]) RETURNS INTEGER[] LANGUAGE plpgsql AS $$
                DECLARE
                    made INTEGER[] := '{}';
                BEGIN
                    FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
                        UPDATE sessions SET version = p_versions[i], tree = p_trees[i], app_data = p_app_data[i],
                            csrf_token = p_csrf_tokens[i], last_seq = p_last_seqs[i], extra = p_extras[i],
                            created_at = p_created_at[i], last_used_at = p_last_used_at[i], expires_at = p_expires_at[i]
                        WHERE id = p_ids[i] AND version = p_expected[i];
                        IF FOUND THEN
                            made := made || i;
                        END IF;
                    END LOOP;
                    INSERT INTO history (session, seq, entry) SELECT p_ids[entry.owner], entry.seq, entry.body
                    FROM unnest(p_entry_commits, p_entry_seqs, p_entry_bodies) AS entry(owner, seq, body)
                    WHERE entry.owner = ANY(made);
                    RETURN made;
                END
                $$
                """
            ]
        ),
    ]

    /// Instances share the database.
    public var isShared: Bool { true }

    /// The pool's event loops, one after the other: the answers of the database arrive there, so
    /// a request that runs there resumes where its answer is, with no hop between threads.
    public func preferredTaskExecutor() -> (any TaskExecutor)? {
        executors[nextExecutor.wrappingAdd(1, ordering: .relaxed).oldValue % executors.count]
    }

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

    public func dropHistory(_ id: String, before: Int) async throws(StoreError) {
        try await bounded {
            _ = try await self.client.collectedRows(
                "DELETE FROM history WHERE session = \(id) AND seq < \(Int64(before))", logger: self.logger)
        }
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

    /// Runs `body` for at most ``timeout``; any failure becomes a `StoreError`. The caller is
    /// answered when the time is up even if `body` cannot be cancelled (a query waiting for a
    /// connection while the database is down); `body` is then cancelled and left to finish.
    ///
    /// When a call finds the database unreachable (a lost connection, a refused one, the
    /// timeout), the calls still waiting for it are answered at once and their queries
    /// cancelled, and later calls fail at once while one at a time tries the database again
    /// (see ``Reachability``): under load, requests would otherwise each wait out the timeout,
    /// a step twice (it reads, then commits), and answer after their clients gave up.
    func bounded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws(StoreError) -> T {
        let limit: Duration
        switch reachability.admitCall() {
        case .refused: throw .unavailable("PostgreSQL is unreachable; trying again")
        case .normal: limit = timeout
        // A try while it is unreachable holds its session's lock: it gives up sooner.
        case .tryingAgain: limit = min(timeout, .seconds(1))
        }
        let callersExecutor = withUnsafeCurrentTask { task in task?.unownedTaskExecutor }.flatMap { preferred in
            executors.first { $0.asUnownedTaskExecutor() == preferred }
        }
        let answer = OnceContinuation<T>()
        let reachability = self.reachability
        let ticket = Ticket()
        defer { reachability.settled(ticket) }
        do {
            let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                answer.set(continuation)
                // A task of its own, so the caller can be answered at the deadline whatever the
                // query does: it runs on this thread until the query is sent, then resumes on the
                // caller's event loop when the caller prefers one (an immediate task does not
                // inherit the preference).
                let work = Task.immediate(executorPreference: callersExecutor) {
                    do {
                        answer.resume(with: .success(try await body()))
                    } catch let error as PostgresTransactionError {
                        // A conflict or duplicate thrown inside a transaction comes back wrapped.
                        answer.resume(with: .failure((error.closureError as? StoreError) ?? error))
                    } catch {
                        answer.resume(with: .failure(error))
                    }
                }
                // The watchdog fails the call at its deadline: a timer of its own for every call
                // (a sleeping task) cost more CPU than the query.
                reachability.waits(ticket, until: .now + limit, limit: limit) { reason in
                    if answer.resume(with: .failure(reason)) { work.cancel() }
                }
            }
            reachability.answered()
            return value
        } catch let error as StoreError {
            reachability.answered()  // a conflict or a duplicate: the database answered
            throw error
        } catch {
            if Self.meansUnreachable(error) { reachability.foundUnreachable() } else { reachability.answered() }
            if let error = error as? Unreachable { throw .unavailable(error.description) }
            throw .unavailable("PostgreSQL: \(String(describing: error).split(separator: "\n").first ?? "")")
        }
    }

    /// Whether `error` says the database cannot be reached (rather than refusing a statement).
    private static func meansUnreachable(_ error: any Error) -> Bool {
        switch error {
        case is Unreachable, is ChannelError, is IOError:
            return true
        case let error as PostgresError:
            // A prepared statement's errors come in PostgresNIO's older form.
            if case .connectionClosed = error { return true }
            return false
        case let error as PSQLError:
            return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed]
                .contains(error.code)
        case let error as PostgresTransactionError:
            return [error.beginError, error.closureError, error.commitError, error.rollbackError].contains {
                $0.map(meansUnreachable) ?? false
            }
        default:
            return false
        }
    }
}

/// Why a call got no answer from the database.
private enum Unreachable: Error, CustomStringConvertible {
    case timedOut(Duration)
    case lostMeanwhile

    var description: String {
        switch self {
        case .timedOut(let limit): "PostgreSQL did not answer within \(limit)"
        case .lostMeanwhile: "PostgreSQL became unreachable"
        }
    }
}

/// A call in flight, by identity.
private final class Ticket: Sendable {}

/// Whether the database is taken to be reachable (a circuit breaker): after a call found it
/// unreachable, the calls waiting for it are failed, and only one call at a time may try it,
/// at most every ``retryInterval``, until one gets an answer.
fileprivate final class Reachability: Sendable {
    private enum State {
        case reachable
        case unreachable(tryingAgain: Bool, nextTry: ContinuousClock.Instant)
    }
    /// How a call may go to the database.
    enum Admission { case normal, tryingAgain, refused }
    private let state = Mutex(State.reachable)
    /// The least time between two tries while the database is unreachable.
    private let retryInterval = Duration.milliseconds(500)
    /// A call waiting for the database: its deadline, and what fails it.
    private struct Waiting {
        var deadline: ContinuousClock.Instant
        var limit: Duration
        var fail: @Sendable (Unreachable) -> Void
    }

    /// The calls waiting for the database, by ticket.
    private let waiting = Mutex<[ObjectIdentifier: Waiting]>([:])

    /// Notes the call of `ticket` waiting for the database until `deadline` (`limit` after it
    /// started), and what fails it.
    func waits(
        _ ticket: Ticket, until deadline: ContinuousClock.Instant, limit: Duration,
        failedBy fail: @escaping @Sendable (Unreachable) -> Void
    ) {
        waiting.withLock { $0[ObjectIdentifier(ticket)] = Waiting(deadline: deadline, limit: limit, fail: fail) }
    }

    /// Fails the calls whose deadline passed.
    func expire(now: ContinuousClock.Instant) {
        let expired = waiting.withLock { waiting -> [Waiting] in
            let late = waiting.filter { $0.value.deadline <= now }
            for key in late.keys { waiting.removeValue(forKey: key) }
            return Array(late.values)
        }
        for call in expired { call.fail(.timedOut(call.limit)) }
    }

    /// The call of `ticket` has its answer.
    func settled(_ ticket: Ticket) {
        _ = waiting.withLock { $0.removeValue(forKey: ObjectIdentifier(ticket)) }
    }

    /// Whether a call may go to the database now, and whether as the one trying it again.
    func admitCall() -> Admission {
        state.withLock { state in
            switch state {
            case .reachable:
                return .normal
            case .unreachable(let trying, let nextTry):
                guard !trying, ContinuousClock.now >= nextTry else { return .refused }
                state = .unreachable(tryingAgain: true, nextTry: nextTry)
                return .tryingAgain
            }
        }
    }

    /// A call got an answer from the database.
    func answered() {
        state.withLock { if case .unreachable = $0 { $0 = .reachable } }
    }

    /// A call found the database unreachable: the calls waiting for it fail now.
    func foundUnreachable() {
        state.withLock { $0 = .unreachable(tryingAgain: false, nextTry: .now + retryInterval) }
        let failing = waiting.withLock { waiting in
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        failing.forEach { $0.fail(.lostMeanwhile) }
    }
}

/// A continuation resumed by whichever comes first: the call's answer, or its failure.
private final class OnceContinuation<T: Sendable>: Sendable {
    private let state = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func set(_ continuation: CheckedContinuation<T, any Error>) { state.withLock { $0 = continuation } }

    /// Resumes if nobody did yet; `true` when this call resumed.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        guard
            let continuation = state.withLock({ current -> CheckedContinuation<T, any Error>? in
                defer { current = nil }
                return current
            })
        else { return false }
        continuation.resume(with: result)
        return true
    }
}
