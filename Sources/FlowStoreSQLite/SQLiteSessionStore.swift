import FlowStore
import Foundation
import GRDB
import Logging
import ServiceLifecycle

/// Sessions in an SQLite database (the embedded default, `--store sqlite:PATH`): WAL mode, the
/// schema created and migrated by versioned migrations, every change in one transaction that
/// commits before the request is answered.
///
/// ```swift
/// let store = try SQLiteSessionStore(path: ".data/flowserver.sqlite")
/// ```
///
/// Commits use `synchronous = NORMAL` in WAL mode: an acknowledged change survives the process
/// being killed (the WAL is written before the commit returns); it needs `FULL` to also survive
/// a power cut, at the price of an fsync per step.
///
/// The write-ahead log is copied into the database file in the background (see
/// `WALCheckpointer`), not inside commits.
public final class SQLiteSessionStore: ImmediateSessionLoading {
    private let pool: DatabasePool
    /// The connections of the threads that read without suspending (see ``loadImmediately(_:)``).
    private let threadReaders: ThreadReadConnections
    private let checkpointer: WALCheckpointer
    /// The long trees this store wrote last: a commit sends SQLite only the pieces that changed.
    private let writtenTrees = WrittenTrees()
    /// The database file.
    public let path: String

    /// Opens (creating it if needed) and migrates the database at `path`.
    ///
    /// - Parameters:
    ///   - path: The database file (`.data/flowserver.sqlite` is `flowserver`'s default).
    ///   - createsDirectory: Whether a missing directory of `path` is created (with its parents);
    ///     `false`: a missing directory is an error that names it (a mistyped path must not leave
    ///     a directory behind).
    ///   - checkpointInterval: How often the write-ahead log is copied into the database file
    ///     while sessions change.
    ///   - walRestartFrames: The log's length, in pages, from which it is started over (after
    ///     a last copy that briefly holds up commits); its file is cut back to twice that size
    ///     (16 MB by default) when it grew longer.
    ///   - logger: Where the store reports what it cannot fix itself: checkpoints that keep
    ///     failing (the log then grows until one works).
    /// - Throws: `StoreError` (unavailable) with a one-line reason: an unreadable or corrupt
    ///   file, a directory that cannot be written, a database from a newer FlowServer.
    public init(
        path: String, createsDirectory: Bool = true, checkpointInterval: Duration = .milliseconds(50),
        walRestartFrames: Int = 2000, logger: Logger = Logger(label: "FlowStoreSQLite")
    ) throws(StoreError) {
        self.path = path
        try Self.prepareDirectory(of: path, creating: createsDirectory)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")  // see `checkpointer`
            // A log that grew past twice the restart length (after a burst) is cut back when it starts over.
            try db.execute(sql: "PRAGMA journal_size_limit = \(walRestartFrames * 2 * 4096)")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            if try pool.read(Self.migrator.hasBeenSuperseded) { throw NewerSchema() }
            threadReaders = try ThreadReadConnections(path: path, configuration: configuration)
            checkpointer = try WALCheckpointer(
                pool: pool, path: path, interval: checkpointInterval, restartFrames: walRestartFrames,
                failures: CheckpointFailureLog(patience: .seconds(10), logger: logger))
        } catch {
            throw .unavailable("cannot open the SQLite store at \(path): \(Self.reason(error))")
        }
    }

    /// The checkpointer of the write-ahead log (see `WALCheckpointer`): SQLite's own automatic
    /// checkpoints are off, so without it running the log only grows.
    public var services: [any Service] { [checkpointer] }

    /// The schema, one migration per version (never edit a shipped one: add another).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sessions and history") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sessions (
                        id TEXT PRIMARY KEY NOT NULL,
                        version INTEGER NOT NULL,
                        tree BLOB NOT NULL,
                        appData BLOB NOT NULL,
                        csrfToken TEXT NOT NULL,
                        lastSeq INTEGER NOT NULL,
                        extra BLOB NOT NULL,
                        createdAt INTEGER NOT NULL,
                        lastUsedAt INTEGER NOT NULL,
                        expiresAt INTEGER NOT NULL
                    );
                    CREATE INDEX sessions_by_expiry ON sessions(expiresAt);
                    CREATE TABLE history (
                        session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL,
                        entry BLOB NOT NULL,
                        PRIMARY KEY (session, seq)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: settings (the session id secret)") { db in
            try db.execute(sql: "CREATE TABLE settings (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
        }
        migrator.registerMigration("v3: quarantine (sessions the app could no longer read)") { db in
            try db.execute(
                sql: """
                    CREATE TABLE quarantine (
                        id TEXT NOT NULL,
                        version INTEGER NOT NULL,
                        tree BLOB NOT NULL,
                        appData BLOB NOT NULL,
                        csrfToken TEXT NOT NULL,
                        lastSeq INTEGER NOT NULL,
                        extra BLOB NOT NULL,
                        createdAt INTEGER NOT NULL,
                        lastUsedAt INTEGER NOT NULL,
                        expiresAt INTEGER NOT NULL,
                        history BLOB NOT NULL,
                        reason TEXT NOT NULL,
                        cause TEXT NOT NULL,
                        writtenBy TEXT,
                        quarantinedAt INTEGER NOT NULL,
                        keptUntil INTEGER NOT NULL,
                        PRIMARY KEY (id, version)
                    ) WITHOUT ROWID;
                    CREATE INDEX quarantine_by_expiry ON quarantine(keptUntil);
                    """)
        }
        migrator.registerMigration("v4: trees in pieces (a commit writes what changed)") { db in
            try db.execute(sql: TreeChunks.schema)
        }
        return migrator
    }

    public func load(_ id: String) async throws(StoreError) -> SessionRecord? {
        try await read { db in try Self.fetchSession(id, in: db) }
    }

    /// Reads the row's version first, and the rest only when it is not `version`.
    public func load(_ id: String, unlessAt version: Int) async throws(StoreError) -> SessionReading {
        try await read { db in
            guard
                let stored = try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT version FROM sessions WHERE id = ?"), arguments: [id])
            else { return .missing }
            guard stored != version else { return .unchanged }
            return try Self.fetchSession(id, in: db).map { .changed($0) } ?? .missing
        }
    }

    /// A read on the calling thread's own connection: it waits for no other reader (in WAL mode,
    /// not for the writer either), so a server thread may call it; async code calls ``load(_:)``.
    public func loadImmediately(_ id: String) throws(StoreError) -> SessionRecord? {
        do { return try threadReaders.read { db in try Self.fetchSession(id, in: db) } } catch {
            throw Self.storeError(error)
        }
    }

    /// Reads the row's version and times only, not its tree and data, like ``loadImmediately(_:)``.
    public func stampImmediately(_ id: String) throws(StoreError) -> SessionStamp? {
        do {
            return try threadReaders.read { db in
                try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT version, lastUsedAt, expiresAt FROM sessions WHERE id = ?"),
                    arguments: [id]
                )
                .map { SessionStamp(version: $0[0], lastUsedAt: $0[1], expiresAt: $0[2]) }
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    private static func fetchSession(_ id: String, in db: Database) throws -> SessionRecord? {
        guard let record = try fetchRow(id, in: db) else { return nil }
        guard TreeChunks.mayContinue(headLength: record.tree.count) else { return record }
        // A tree in pieces: its row and pieces are read as of one commit.
        return try inOneSnapshot(db) { try fetchRow(id, in: db).map { try TreeChunks.whole($0, in: db) } }
    }

    /// Session `id`'s row, its tree's head alone (see `TreeChunks`).
    private static func fetchRow(_ id: String, in db: Database) throws -> SessionRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(recordColumns) FROM sessions WHERE id = ?"), arguments: [id])
            .map(Self.record)
    }

    /// `body`'s reads as of one commit: inside a read transaction (unless one is open already).
    static func inOneSnapshot<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        guard !db.isInsideTransaction else { return try body() }
        var result: T?
        try db.inTransaction(.deferred) {
            result = try body()
            return .commit
        }
        return result!
    }

    /// The columns ``record(_:)`` reads, by position: a lookup by name lower-cases the name and
    /// every column's, on every read.
    static let recordColumns =
        "id, version, tree, appData, csrfToken, lastSeq, extra, createdAt, lastUsedAt, expiresAt"

    public func create(_ record: SessionRecord, entries: [HistoryRecord]) async throws(StoreError) {
        try await write { db in
            let exists =
                try Bool.fetchOne(db, sql: "SELECT 1 FROM sessions WHERE id = ?", arguments: [record.id]) ?? false
            if exists { throw StoreError.duplicate(session: record.id) }
            try db.execute(
                sql: """
                    INSERT INTO sessions (id, version, tree, appData, csrfToken, lastSeq, extra, createdAt, lastUsedAt, expiresAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: Self.arguments(record, tree: TreeChunks.head(of: record.tree)))
            try TreeChunks.write(record.tree, of: record.id, in: db)
            try Self.insert(entries, of: record.id, into: db)
        }
        writtenTrees.wrote(record.tree, of: record.id, version: record.version, createdAt: record.createdAt)
    }

    public func commit(_ record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord]) async throws(StoreError)
    {
        let stored = writtenTrees.tree(of: record.id, version: expectedVersion, createdAt: record.createdAt)
        writtenTrees.forget(record.id)  // until this commit is known to have been stored
        try await write { db in
            // Most commits keep the expiry (it is renewed at most once a minute), and an UPDATE
            // that sets an indexed column rewrites its index entry even to the same value: a page
            // of WAL per commit. So the expiry columns are set only when they change.
            let changed: StatementArguments = [
                record.version, TreeChunks.head(of: record.tree), Data(record.appData), record.csrfToken,
                record.lastSeq,
                Data(record.extra),
            ]
            try db.cachedStatement(
                sql: """
                    UPDATE sessions SET version = ?, tree = ?, appData = ?, csrfToken = ?, lastSeq = ?, extra = ?
                    WHERE id = ? AND version = ? AND lastUsedAt = ? AND expiresAt = ?
                    """
            ).execute(arguments: changed + [record.id, expectedVersion, record.lastUsedAt, record.expiresAt])
            if db.changesCount == 0 {
                try db.cachedStatement(
                    sql: """
                        UPDATE sessions SET version = ?, tree = ?, appData = ?, csrfToken = ?, lastSeq = ?, extra = ?,
                            createdAt = ?, lastUsedAt = ?, expiresAt = ?
                        WHERE id = ? AND version = ?
                        """
                ).execute(
                    arguments: changed + [
                        record.createdAt, record.lastUsedAt, record.expiresAt, record.id, expectedVersion,
                    ])
            }
            guard db.changesCount == 1 else {
                let found = try Int.fetchOne(
                    db, sql: "SELECT version FROM sessions WHERE id = ?", arguments: [record.id])
                throw StoreError.conflict(session: record.id, expected: expectedVersion, found: found)
            }
            try TreeChunks.write(record.tree, of: record.id, unchangedFrom: stored, in: db)
            try Self.insert(entries, of: record.id, into: db)
        }
        writtenTrees.wrote(record.tree, of: record.id, version: record.version, createdAt: record.createdAt)
    }

    public func history(_ id: String, after: Int, limit: Int) async throws(StoreError) -> [HistoryRecord] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT seq, entry FROM history WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?"),
                arguments: [id, after, max(0, limit)]
            ).map { HistoryRecord(seq: $0["seq"], entry: [UInt8]($0["entry"] as Data)) }
        }
    }

    public func delete(_ id: String) async throws(StoreError) {
        writtenTrees.forget(id)
        try await write { db in try db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id]) }
    }

    public func dropHistory(_ id: String, before: Int) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM history WHERE session = ? AND seq < ?", arguments: [id, before])
        }
    }

    public func purgeExpired(now: Int64, limit: Int) async throws(StoreError) -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expiresAt < ? LIMIT ?)",
                arguments: [now, limit])
            let purged = db.changesCount
            try db.execute(
                sql: """
                    DELETE FROM quarantine WHERE (id, version) IN
                        (SELECT id, version FROM quarantine WHERE keptUntil < ? LIMIT ?)
                    """,
                arguments: [now, limit])
            return purged
        }
    }

    public func liveCount(now: Int64) async throws(StoreError) -> Int {
        try await read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM sessions WHERE expiresAt >= ? AND version > 0", arguments: [now]) ?? 0
        }
    }

    public func sessionSecret(proposing proposed: [UInt8]) async throws(StoreError) -> [UInt8] {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO settings (name, value) VALUES ('session-secret', ?)",
                arguments: [Data(proposed)])
            return try [UInt8](
                Data.fetchOne(db, sql: "SELECT value FROM settings WHERE name = 'session-secret'") ?? Data(proposed))
        }
    }

    // MARK: Plumbing
    //
    // The statements of every request (load, commit, history) are prepared once per connection
    // (`cachedStatement`): preparing them is costly (see Benchmarks/README.md).

    /// Runs `body` on one of the pool's readers and hands its result to the waiting task.
    ///
    /// Not GRDB's `async` reads: they give the reader back only once the task has resumed, so
    /// while Swift's cooperative threads are busy every reader sits idle waiting for one of
    /// them, and each read then waits for the whole queue of tasks (at 256 connections on two
    /// cores, reads of one row took 25–100 ms). Here the reader is given back on its own queue
    /// as soon as `body` returns. Every read is one SELECT, consistent on its own, so none needs
    /// the transaction (BEGIN and COMMIT) that GRDB's `read` wraps around its statements.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.asyncUnsafeRead { database in
                continuation.resume(returning: Result { try body(database.get()) })
            }
        }
        do { return try result.get() } catch { throw Self.storeError(error) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await pool.write(body) } catch { throw Self.storeError(error) }
    }

    private static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        return .unavailable("SQLite: \(reason(error))")
    }

    /// Makes sure the directory of `path` is there (creating it when `creating`), or says in words
    /// why it cannot be: missing, or a file where a directory should be.
    private static func prepareDirectory(of path: String, creating: Bool) throws(StoreError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        // The nearest part of the directory's path that exists must be a directory.
        var existing = directory
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isDirectory) {
            existing.deleteLastPathComponent()
        }
        guard isDirectory.boolValue else {
            throw .unavailable("cannot open the SQLite store at \(path): \(existing.path) is a file, not a directory")
        }
        guard existing.path != directory.path else { return }
        guard creating else {
            throw .unavailable(
                "cannot open the SQLite store at \(path): the directory \(directory.path) does not exist (create it first)"
            )
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .unavailable(
                "cannot create the directory \(directory.path) for the SQLite store: \(Self.reason(error))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "\(error.message ?? "error") (\(error.resultCode))"
        }
        // Foundation's file errors: the POSIX reason underneath, in words ("Permission denied").
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
    }

    /// The values of `record`'s columns, with `tree` for its tree's (the whole tree unless given).
    static func arguments(_ record: SessionRecord, tree: Data? = nil) -> StatementArguments {
        [
            record.id, record.version, tree ?? Data(record.tree), Data(record.appData), record.csrfToken,
            record.lastSeq,
            Data(record.extra),
            record.createdAt, record.lastUsedAt, record.expiresAt,
        ]
    }

    private static func insert(_ entries: [HistoryRecord], of session: String, into db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO history (session, seq, entry) VALUES (?, ?, ?)")
        for entry in entries {
            try statement.execute(arguments: [session, entry.seq, Data(entry.entry)])
        }
    }

    /// A record from a row of ``recordColumns``.
    static func record(_ row: Row) -> SessionRecord {
        SessionRecord(
            id: row[0], version: row[1], tree: [UInt8](row[2] as Data), appData: [UInt8](row[3] as Data),
            csrfToken: row[4], lastSeq: row[5], extra: [UInt8](row[6] as Data),
            createdAt: row[7], lastUsedAt: row[8], expiresAt: row[9])
    }
}

/// A database whose schema a newer FlowServer migrated further than this build knows.
private struct NewerSchema: Error, CustomStringConvertible {
    var description: String {
        "a newer FlowServer migrated it to a schema this build does not know (run that version or a later one)"
    }
}
