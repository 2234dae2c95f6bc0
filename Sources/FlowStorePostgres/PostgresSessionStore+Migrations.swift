import FlowStore
import PostgresNIO

/// The store's schema: its migrations, and how they are applied at start.
extension PostgresSessionStore {
    /// Applies the migrations not applied yet, in one transaction under an advisory lock (two
    /// instances starting at once take turns).
    func migrate() async throws(StoreError) {
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
}
