import FlowStore
import Foundation
import GRDB

extension SQLiteSessionStore {
    /// Keeps `session` (a stored session the app can no longer read) until its `expiresAt`; a copy of
    /// the same session and version kept already stays as it is.
    public func quarantine(_ session: QuarantinedSession) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO quarantine (id, version, tree, appData, csrfToken, lastSeq, extra, createdAt,
                        lastUsedAt, expiresAt, history, reason, cause, writtenBy, quarantinedAt, keptUntil)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: Self.arguments(session.record)
                    + [
                        Data(session.encodedHistory), session.reason, session.cause, session.writtenBy,
                        session.quarantinedAt, session.expiresAt,
                    ])
        }
    }

    /// The quarantined copies of session `id` not purged yet, oldest version first.
    public func quarantined(_ id: String) async throws(StoreError) -> [QuarantinedSession] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, version, tree, appData, csrfToken, lastSeq, extra, createdAt, lastUsedAt, expiresAt,
                        history, reason, cause, writtenBy, quarantinedAt, keptUntil
                    FROM quarantine WHERE id = ? ORDER BY version
                    """, arguments: [id]
            ).map { row in
                QuarantinedSession(
                    record: Self.record(row),
                    history: try QuarantinedSession.history(decoding: [UInt8](row[10] as Data)),
                    reason: row[11], cause: row[12], writtenBy: row[13], quarantinedAt: row[14], expiresAt: row[15])
            }
        }
    }

    /// Stored sessions after `id` in id order, at most `limit` (the primary key's order).
    public func sessions(after id: String?, limit: Int) async throws(StoreError) -> [SessionRecord] {
        try await read { db in
            try Self.inOneSnapshot(db) {
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT \(Self.recordColumns) FROM sessions WHERE id > ? ORDER BY id LIMIT ?",
                    arguments: [id ?? "", max(0, limit)])
                return try rows.map { try TreeChunks.whole(Self.record($0), in: db) }
            }
        }
    }
}
