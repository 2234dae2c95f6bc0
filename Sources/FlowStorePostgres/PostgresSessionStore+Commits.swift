import FlowStore
import PostgresNIO

/// A step's commit waiting to be made: the new row, the version it replaces, its new entries.
struct PendingCommit: Sendable {
    var record: SessionRecord
    var expectedVersion: Int
    var entries: [HistoryRecord]
}

/// What became of one commit of a batch.
enum CommitOutcome: Sendable {
    case committed
    /// The row was no longer at the expected version.
    case conflict
    /// The database refused this commit's statement.
    case refused(StoreError)
}

/// The commits of steps, each made together with the others in flight (see `QueryBatches`):
/// one transaction, so one flush of the database's log, for all of them.
extension PostgresSessionStore {
    /// Replaces the row if it still has `expectedVersion` and appends `entries`, in one
    /// transaction with the other commits in flight (see `QueryBatches`); a conflict when the
    /// row is at another version.
    public func commit(_ record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord]) async throws(StoreError)
    {
        let pending = PendingCommit(record: record, expectedVersion: expectedVersion, entries: entries)
        let outcome = try await commitQueries.answer(pending) { commits async throws(StoreError) in
            try await self.make(commits, on: self.commitConnection)
        }
        switch outcome {
        case .committed: return
        case .conflict: throw .conflict(session: record.id, expected: expectedVersion, found: nil)
        case .refused(let error): throw error
        }
    }

    /// Makes `commits` (of distinct sessions: a session's commits on one instance are made in
    /// turn, under its lock) in one statement, ordered by id; when the database refuses that
    /// statement (one commit's fault rolls all back), makes each on its own, so that only the
    /// faulty one fails.
    private func make(_ commits: [PendingCommit], on batchConnection: BatchConnection) async throws(StoreError)
        -> [CommitOutcome]
    {
        try await bounded {
            try await batchConnection.withConnection { connection in
                guard commits.count > 1 else { return [try await self.makeAlone(commits[0], on: connection)] }
                let order = commits.indices.sorted { commits[$0].record.id < commits[$1].record.id }
                let rows: [[PostgresCell]]
                do {
                    rows = try await self.statements.rows(
                        of: .commitMany, Self.commitManyBinds(order.map { commits[$0] }), on: connection)
                } catch  where Self.isRefusal(error) {
                    var outcomes: [CommitOutcome] = []
                    for commit in commits { outcomes.append(try await self.makeAlone(commit, on: connection)) }
                    return outcomes
                }
                let made = Set(try rows.first?.first?.decode([Int32].self) ?? [])
                var outcomes = Array(repeating: CommitOutcome.conflict, count: commits.count)
                for (position, index) in order.enumerated() where made.contains(Int32(position + 1)) {
                    outcomes[index] = .committed
                }
                return outcomes
            }
        }
    }

    /// Makes `commit` by itself, on `connection`.
    private func makeAlone(_ commit: PendingCommit, on connection: PostgresConnection) async throws -> CommitOutcome {
        let binds = Self.commitBinds(commit.record, expectedVersion: commit.expectedVersion, entries: commit.entries)
        do {
            let rows = try await statements.rows(of: .commit, binds, on: connection)
            return try rows.first?.first?.decode(Int64.self) == 1 ? .committed : .conflict
        } catch  where Self.isRefusal(error) {
            return .refused(.unavailable("PostgreSQL refused the commit: \(String(describing: error).prefix(200))"))
        }
    }

    /// Whether `error` is the database refusing a statement (rather than being unreachable).
    static func isRefusal(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError: error.code == .server
        case let error as PostgresError:
            if case .server = error { true } else { false }
        default: false
        }
    }

    /// The arguments of `flowserver_commit_many` (migration 5) for `commits`, in their order.
    private static func commitManyBinds(_ commits: [PendingCommit]) -> [PostgresData] {
        func column(_ type: PostgresDataType, _ value: (PendingCommit) -> PostgresData) -> PostgresData {
            PostgresData(array: commits.map(value), elementType: type)
        }
        let entries = commits.enumerated().flatMap { number, commit in commit.entries.map { (number + 1, $0) } }
        return [
            column(.text) { PostgresData(string: $0.record.id) },
            column(.int8) { PostgresData(int64: Int64($0.expectedVersion)) },
            column(.int8) { PostgresData(int64: Int64($0.record.version)) },
            column(.bytea) { PostgresData(bytes: $0.record.tree) },
            column(.bytea) { PostgresData(bytes: $0.record.appData) },
            column(.text) { PostgresData(string: $0.record.csrfToken) },
            column(.int8) { PostgresData(int64: Int64($0.record.lastSeq)) },
            column(.bytea) { PostgresData(bytes: $0.record.extra) },
            column(.int8) { PostgresData(int64: $0.record.createdAt) },
            column(.int8) { PostgresData(int64: $0.record.lastUsedAt) },
            column(.int8) { PostgresData(int64: $0.record.expiresAt) },
            PostgresData(array: entries.map { PostgresData(int32: Int32($0.0)) }, elementType: .int4),
            PostgresData(array: entries.map { PostgresData(int64: Int64($0.1.seq)) }, elementType: .int8),
            PostgresData(array: entries.map { PostgresData(bytes: $0.1.entry) }, elementType: .bytea),
        ]
    }

    /// The arguments of the commit statement (see ``PreparedStatements/Statement/commit``): the
    /// row replaced if it still has `expectedVersion`, and `entries` appended.
    static func commitBinds(_ record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord])
        -> [PostgresData]
    {
        [
            PostgresData(string: record.id), PostgresData(int64: Int64(expectedVersion)),
            PostgresData(int64: Int64(record.version)), PostgresData(bytes: record.tree),
            PostgresData(bytes: record.appData), PostgresData(string: record.csrfToken),
            PostgresData(int64: Int64(record.lastSeq)), PostgresData(bytes: record.extra),
            PostgresData(int64: record.createdAt), PostgresData(int64: record.lastUsedAt),
            PostgresData(int64: record.expiresAt),
            PostgresData(array: entries.map { PostgresData(int64: Int64($0.seq)) }, elementType: .int8),
            PostgresData(array: entries.map { PostgresData(bytes: $0.entry) }, elementType: .bytea),
        ]
    }

    /// A conflict unless `rows` (of the commit statement) say one row was replaced.
    static func checkUpdated(_ rows: [[PostgresCell]], _ record: SessionRecord, _ expectedVersion: Int) throws {
        guard try rows.first?.first?.decode(Int64.self) == 1 else {
            throw StoreError.conflict(session: record.id, expected: expectedVersion, found: nil)
        }
    }
}
