import FlowStore
import PostgresNIO

/// A session's id and the version a caller holds of it: what a conditional read asks about.
struct HeldVersion: Hashable, Sendable {
    var id: String
    var version: Int
}

/// The reads of sessions a page makes, each asked together with the others in flight (see
/// `QueryBatches`).
extension PostgresSessionStore {
    /// Asked together with the other reads in flight (see `QueryBatches`): one query, which
    /// sends a row's contents only when it is not at the version held.
    public func load(_ id: String, unlessAt version: Int) async throws(StoreError) -> SessionReading {
        try await readQueries.answer(HeldVersion(id: id, version: version)) { held async throws(StoreError) in
            let readings = try await self.read(Array(Set(held)))
            return held.map { readings[$0] ?? .missing }
        }
    }

    /// Asked together with the other stamps in flight (see `QueryBatches`).
    public func stamp(_ id: String) async throws(StoreError) -> SessionStamp? {
        try await stampQueries.answer(id) { ids async throws(StoreError) in
            let stamps = try await self.stamps(of: Array(Set(ids)))
            return ids.map { stamps[$0] ?? nil }
        }
    }

    /// Asked together with the other stamps in flight (see `QueryBatches`), answered with no task
    /// of its own when another question sends the batch.
    public func stamp(_ id: String, then: @escaping @Sendable (Result<SessionStamp?, StoreError>) -> Void) {
        stampQueries.answer(id, then: then) { ids async throws(StoreError) in
            let stamps = try await self.stamps(of: Array(Set(ids)))
            return ids.map { stamps[$0] ?? nil }
        }
    }

    /// The stamps of the sessions of `ids` that exist, by one query (each id once).
    private func stamps(of ids: [String]) async throws(StoreError) -> [String: SessionStamp] {
        try await bounded {
            try await self.stampConnection.withConnection { connection in
                let rows = try await self.statements.rows(
                    of: .stamps, [PostgresData(array: ids.map { PostgresData(string: $0) }, elementType: .text)],
                    on: connection)
                var stamps: [String: SessionStamp] = [:]
                for cells in rows {
                    guard cells.count == 4 else {
                        throw StoreError.unavailable("PostgreSQL answered \(cells.count) columns for a session's stamp")
                    }
                    stamps[try cells[0].decode(String.self)] = SessionStamp(
                        version: Int(try cells[1].decode(Int64.self)), lastUsedAt: try cells[2].decode(Int64.self),
                        expiresAt: try cells[3].decode(Int64.self))
                }
                return stamps
            }
        }
    }

    /// What one query answers for each session of `held` it finds (each pair once).
    private func read(_ held: [HeldVersion]) async throws(StoreError) -> [HeldVersion: SessionReading] {
        try await bounded {
            try await self.readConnection.withConnection { connection in
                let rows = try await self.statements.rows(
                    of: .readings,
                    [
                        PostgresData(array: held.map { PostgresData(string: $0.id) }, elementType: .text),
                        PostgresData(array: held.map { PostgresData(int64: Int64($0.version)) }, elementType: .int8),
                    ], on: connection)
                var readings: [HeldVersion: SessionReading] = [:]
                for cells in rows {
                    guard cells.count == 11 else {
                        throw StoreError.unavailable("PostgreSQL answered \(cells.count) columns for a session read")
                    }
                    let asked = HeldVersion(
                        id: try cells[0].decode(String.self), version: Int(try cells[10].decode(Int64.self)))
                    readings[asked] =
                        Int(try cells[1].decode(Int64.self)) == asked.version
                        ? .unchanged : try Self.record(from: [Array(cells.prefix(10))]).map { .changed($0) } ?? .missing
                }
                return readings
            }
        }
    }
}
