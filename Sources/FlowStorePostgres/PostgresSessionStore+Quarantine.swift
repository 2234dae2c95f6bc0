import FlowStore
import NIOCore
import PostgresNIO

extension PostgresSessionStore {
    /// Keeps `session` (a stored session the app can no longer read) until its `expiresAt`; a copy of
    /// the same session and version kept already stays as it is.
    public func quarantine(_ session: QuarantinedSession) async throws(StoreError) {
        let record = session.record
        try await bounded {
            _ = try await self.client.collectedRows(
                """
                INSERT INTO quarantine (id, version, tree, app_data, csrf_token, last_seq, extra, created_at, last_used_at,
                    expires_at, history, reason, cause, written_by, quarantined_at, kept_until)
                VALUES (\(record.id), \(Int64(record.version)), \(ByteBuffer(bytes: record.tree)),
                    \(ByteBuffer(bytes: record.appData)), \(record.csrfToken), \(Int64(record.lastSeq)),
                    \(ByteBuffer(bytes: record.extra)), \(record.createdAt), \(record.lastUsedAt), \(record.expiresAt),
                    \(ByteBuffer(bytes: session.encodedHistory)), \(session.reason), \(session.cause),
                    \(session.writtenBy), \(session.quarantinedAt), \(session.expiresAt))
                ON CONFLICT (id, version) DO NOTHING
                """, logger: self.logger)
        }
    }

    /// The quarantined copies of session `id` not purged yet, oldest version first.
    public func quarantined(_ id: String) async throws(StoreError) -> [QuarantinedSession] {
        try await bounded {
            let rows = try await self.client.collectedRows(
                """
                SELECT \(unescaped: Self.sessionColumns), history, reason, cause, written_by, quarantined_at, kept_until
                FROM quarantine WHERE id = \(id) ORDER BY version
                """, logger: self.logger)
            return try rows.map { row in
                let cells = Array(row)
                guard let record = try Self.record(from: [Array(cells.prefix(10))]), cells.count == 16 else {
                    throw StoreError.unavailable("PostgreSQL answered \(cells.count) quarantine columns")
                }
                return QuarantinedSession(
                    record: record,
                    history: try QuarantinedSession.history(
                        decoding: Array(try cells[10].decode(ByteBuffer.self).readableBytesView)),
                    reason: try cells[11].decode(String.self), cause: try cells[12].decode(String.self),
                    writtenBy: try cells[13].decode(String?.self), quarantinedAt: try cells[14].decode(Int64.self),
                    expiresAt: try cells[15].decode(Int64.self))
            }
        }
    }

    /// Stored sessions after `id` in id order, at most `limit` (the primary key's order).
    public func sessions(after id: String?, limit: Int) async throws(StoreError) -> [SessionRecord] {
        try await bounded {
            let rows = try await self.client.collectedRows(
                """
                SELECT \(unescaped: Self.sessionColumns) FROM sessions WHERE id > \(id ?? "")
                ORDER BY id LIMIT \(Int64(max(0, limit)))
                """, logger: self.logger)
            return try rows.compactMap { row in try Self.record(from: [Array(row)]) }
        }
    }
}
