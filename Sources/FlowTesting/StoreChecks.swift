import FlowStore

/// What a ``checkQuarantine(of:)`` found wrong with a store.
public struct StoreCheckFailure: Error, CustomStringConvertible {
    /// What the store did, and what it should have done.
    public let description: String
}

/// Throws a ``StoreCheckFailure`` saying `failure` unless `condition` holds.
private func expect(_ condition: Bool, _ failure: @autoclosure () -> String) throws {
    if !condition { throw StoreCheckFailure(description: failure()) }
}

/// Checks a `SessionStore`'s quarantine (sessions the app could no longer read, set aside): a
/// copy is kept with its history, reason and times; a second copy of the same version leaves the
/// first as it is; copies of later versions are kept beside it, oldest first; the session itself
/// is untouched; purging drops the expired copies; and a restored copy's older history entries,
/// committed after newer ones, are read back in seq order. For a store implementation's tests; it
/// uses sessions named `quarantine-check-…` (deleted at the end); it
/// purges at 60 ms after 1970, so it leaves a store's other sessions alone unless they expired
/// before that.
///
/// ```swift
/// try await checkQuarantine(of: MyStore())
/// ```
///
/// - Throws: ``StoreCheckFailure`` saying what the store got wrong, or its `StoreError`.
public func checkQuarantine(of store: any SessionStore) async throws {
    let id = "quarantine-check-1"
    let record = SessionRecord(
        id: id, version: 3, tree: Array(#"{"page":"film"}"#.utf8), appData: [1, 2], csrfToken: "token", lastSeq: 4,
        extra: [3], createdAt: 1_000, lastUsedAt: 1_500, expiresAt: 9_000)
    try await store.create(record, entries: [])
    let history = [HistoryRecord(seq: 3, entry: Array("[3]".utf8)), HistoryRecord(seq: 4, entry: [])]
    let first = QuarantinedSession(
        record: record, history: history, reason: #"unknown page "film""#, cause: "unknown-page", writtenBy: "1.0",
        quarantinedAt: 10, expiresAt: 50)
    try await store.quarantine(first)
    var again = first
    again.reason = "a second try"
    try await store.quarantine(again)
    try expect(try await store.quarantined(id) == [first], "the copy kept is not the first one given, as given")
    var later = first
    later.record.version = 5
    later.writtenBy = nil
    later.history = []
    later.expiresAt = 70
    try await store.quarantine(later)
    try expect(try await store.quarantined(id) == [first, later], "copies of two versions are not both kept, in order")
    try expect(try await store.quarantined("quarantine-check-none").isEmpty, "a session never set aside has copies")
    try expect(try await store.load(id) == record, "setting a session aside changed the session")
    _ = try await store.purgeExpired(now: 60, limit: 100)
    try expect(try await store.quarantined(id) == [later], "purging did not drop only the expired copy")
    try expect(try await store.load(id) == record, "purging dropped a session that has not expired")
    // Restoring a copy appends its older entries after newer ones: the history stays in seq order.
    var next = record
    next.version = 4
    try await store.commit(next, expectedVersion: 3, entries: [HistoryRecord(seq: 9, entry: [9])])
    next.version = 5
    try await store.commit(
        next, expectedVersion: 4, entries: [HistoryRecord(seq: 2, entry: [2]), HistoryRecord(seq: 3, entry: [3])])
    let all = try await store.history(id, after: 0, limit: 10).map(\.seq)
    let page = try await store.history(id, after: 2, limit: 1).map(\.seq)
    try expect(all == [2, 3, 9] && page == [3], "entries older than those kept are not read back in seq order")
    try await store.delete(id)
}

/// Checks that a `SessionStore` folds a session's history (`dropHistory(_:before:)`): each fold
/// drops exactly the entries before its point, again and again as the history grows; entries
/// older than an earlier fold's point, appended after it (a restored copy's), go with the next
/// fold; a fold with nothing to drop, or of a session with no history, changes nothing; other
/// sessions keep theirs. For a store implementation's tests; it uses sessions named
/// `fold-check-…` (deleted at the end).
///
/// - Throws: ``StoreCheckFailure`` saying what the store got wrong, or its `StoreError`.
public func checkFolds(of store: any SessionStore) async throws {
    func entries(_ seqs: ClosedRange<Int>) -> [HistoryRecord] {
        seqs.map { HistoryRecord(seq: $0, entry: [UInt8($0)]) }
    }
    func record(_ id: String, version: Int, lastSeq: Int) -> SessionRecord {
        SessionRecord(
            id: id, version: version, tree: [], csrfToken: "t", lastSeq: lastSeq, createdAt: 1, lastUsedAt: 1,
            expiresAt: 9_000_000_000_000)
    }
    let (id, other, empty) = ("fold-check-1", "fold-check-2", "fold-check-3")
    try await store.create(record(id, version: 1, lastSeq: 10), entries: entries(1...10))
    try await store.create(record(other, version: 1, lastSeq: 10), entries: entries(1...10))
    try await store.create(record(empty, version: 1, lastSeq: 0), entries: [])
    func kept(_ id: String) async throws -> [Int] { try await store.history(id, after: 0, limit: 100).map(\.seq) }
    try await store.dropHistory(id, before: 4)
    try expect(try await kept(id) == Array(4...10), "a fold did not drop exactly the entries before its point")
    try await store.dropHistory(id, before: 4)
    try await store.dropHistory(id, before: 2)
    try expect(try await kept(id) == Array(4...10), "a fold with nothing before its point changed the history")
    var version = 1
    for (last, point) in [(20, 12), (30, 25), (40, 33)] {
        try await store.commit(
            record(id, version: version + 1, lastSeq: last), expectedVersion: version,
            entries: entries(last - 9...last))
        version += 1
        try await store.dropHistory(id, before: point)
        let after = try await kept(id)
        try expect(after == Array(point...last), "a fold before \(point) of entries to \(last) kept \(after)")
    }
    // A restored copy's entries, older than the last fold's point, appended after it.
    try await store.commit(
        record(id, version: version + 1, lastSeq: 40), expectedVersion: version, entries: entries(2...3))
    try await store.dropHistory(id, before: 35)
    try expect(try await kept(id) == Array(35...40), "older entries appended after a fold outlived the next fold")
    try await store.dropHistory(empty, before: 5)
    try expect(try await kept(empty).isEmpty, "a fold of a session with no history made some")
    try expect(try await kept(other) == Array(1...10), "a fold of one session dropped another's entries")
    for id in [id, other, empty] { try await store.delete(id) }
}

/// Checks that a `SessionStore` hands out its sessions a page at a time
/// (`sessions(after:limit:)`): in id order, each once, deleted markers included. For a store
/// implementation's tests; it creates sessions named `page-check-…` and deletes them at the end.
///
/// - Throws: ``StoreCheckFailure`` saying what the store got wrong, or its `StoreError`.
public func checkSessionPages(of store: any SessionStore) async throws {
    let ids = (0..<7).map { "page-check-\($0)" }
    for id in ids.shuffled() {
        try await store.create(
            SessionRecord(
                id: id, version: 1, tree: [], csrfToken: "t", lastSeq: 1, createdAt: 1, lastUsedAt: 1,
                expiresAt: 9_000_000_000_000),
            entries: [])
    }
    try await store.delete(ids[3])
    try await store.create(SessionRecord.deleted(id: ids[3], until: 9_000_000_000_000), entries: [])
    var seen: [String] = []
    var after: String? = "page-check-"
    while let last = after {
        let page = try await store.sessions(after: last, limit: 3)
        if page.count > 3 { throw StoreCheckFailure(description: "a page of 3 held \(page.count) sessions") }
        seen += page.map(\.id).filter { $0.hasPrefix("page-check-") }
        after = page.count == 3 ? page.last?.id : nil
    }
    if seen != ids { throw StoreCheckFailure(description: "pages of 3 gave \(seen), expected \(ids)") }
    if try await store.sessions(after: ids.last, limit: 3).contains(where: { $0.id.hasPrefix("page-check-") }) {
        throw StoreCheckFailure(description: "a page after the last session still held one")
    }
    for id in ids { try await store.delete(id) }
}

/// Checks a `SessionStore`'s `SessionStore.load(_:unlessAt:)`: a session still at the version
/// the caller holds reads as unchanged; at another version, or once committed past it, as the
/// record `load(_:)` gives; never created or deleted, as missing. For a store implementation's
/// tests; it uses a session named `reading-check-1` (deleted at the end).
///
/// - Throws: ``StoreCheckFailure`` saying what the store got wrong, or its `StoreError`.
public func checkConditionalLoad(of store: any SessionStore) async throws {
    func expect(_ reading: SessionReading, _ expected: SessionRecord?, unchanged: Bool = false, _ what: String) throws {
        let right: Bool
        switch reading {
        case .missing: right = expected == nil && !unchanged
        case .unchanged: right = unchanged
        case .changed(let record): right = !unchanged && record == expected
        }
        if !right { throw StoreCheckFailure(description: "\(what): read \(reading)") }
    }
    let id = "reading-check-1"
    var record = SessionRecord(
        id: id, version: 3, tree: Array(#"{"page":"film"}"#.utf8), appData: [1, 2], csrfToken: "token", lastSeq: 4,
        extra: [3], createdAt: 1_000, lastUsedAt: 1_500, expiresAt: 9_000_000_000_000)
    try await store.create(record, entries: [])
    try expect(try await store.load(id, unlessAt: 3), nil, unchanged: true, "a session at the version held")
    try expect(try await store.load(id, unlessAt: 2), record, "a session at a version after the one held")
    var next = record
    next.version = 4
    next.tree = Array(#"{"page":"cast"}"#.utf8)
    try await store.commit(next, expectedVersion: 3, entries: [])
    record = next
    try expect(try await store.load(id, unlessAt: 3), record, "a session committed past the version held")
    try expect(try await store.load(id, unlessAt: 4), nil, unchanged: true, "a session at the version committed")
    try expect(try await store.load("reading-check-none", unlessAt: 1), nil, "a session never created")
    try await store.delete(id)
    try expect(try await store.load(id, unlessAt: 4), nil, "a deleted session")

    // Many at once (a shared store may ask them together): each reading is its own session's.
    let records = (0..<12).map { index in
        SessionRecord(
            id: "reading-check-many-\(index)", version: 2 + index, tree: Array("{\"page\":\(index)}".utf8),
            appData: [], csrfToken: "token", lastSeq: 1, extra: [], createdAt: 1_000, lastUsedAt: 1_500,
            expiresAt: 9_000_000_000_000)
    }
    for record in records { try await store.create(record, entries: []) }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for round in 0..<6 {
            for record in records {
                group.addTask {
                    switch round % 3 {
                    case 0:
                        try expect(
                            try await store.load(record.id, unlessAt: record.version), nil, unchanged: true,
                            "\(record.id) at the version held, among others")
                    case 1:
                        try expect(
                            try await store.load(record.id, unlessAt: record.version - 1), record,
                            "\(record.id) past the version held, among others")
                    default:
                        try expect(
                            try await store.load(record.id + "-none", unlessAt: record.version), nil,
                            "a session never created, among others")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    for record in records { try await store.delete(record.id) }
}

/// Checks a `SessionStamping` store's stamps: a session's stamp is its record's,
/// before and after a commit, alone and with many asked at once; a session never created or
/// deleted has none. For a store implementation's tests; it uses sessions named
/// `stamp-check-…` (deleted at the end).
///
/// - Throws: ``StoreCheckFailure`` saying what the store got wrong, or its `StoreError`.
public func checkStamps(of store: any SessionStamping) async throws {
    func expect(_ id: String, _ expected: SessionRecord?, _ what: String) async throws {
        let stamp = try await store.stamp(id)
        if stamp != expected.map(SessionStamp.init) {
            throw StoreCheckFailure(description: "\(what): stamp \(String(describing: stamp))")
        }
    }
    var record = SessionRecord(
        id: "stamp-check-1", version: 3, tree: [1], appData: [], csrfToken: "token", lastSeq: 1, extra: [],
        createdAt: 1_000, lastUsedAt: 1_500, expiresAt: 9_000_000_000_000)
    try await expect(record.id, nil, "a session not created yet")
    try await store.create(record, entries: [])
    try await expect(record.id, record, "a session created")
    var next = record
    next.version = 4
    next.lastUsedAt = 2_000
    next.expiresAt += 500
    try await store.commit(next, expectedVersion: 3, entries: [])
    record = next
    try await expect(record.id, record, "a session committed")
    let others = (2..<14).map { index in
        SessionRecord(
            id: "stamp-check-\(index)", version: index, tree: [1], appData: [], csrfToken: "token", lastSeq: 1,
            extra: [], createdAt: 1_000, lastUsedAt: 1_000 + Int64(index), expiresAt: 9_000_000_000_000)
    }
    for other in others { try await store.create(other, entries: []) }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<4 {
            for other in [record] + others {
                group.addTask { try await expect(other.id, other, "\(other.id), among others") }
            }
            group.addTask { try await expect("stamp-check-none", nil, "a session never created, among others") }
        }
        try await group.waitForAll()
    }
    for other in [record] + others { try await store.delete(other.id) }
    try await expect(record.id, nil, "a deleted session")
}

/// Checks a `SessionStore`'s commits made at once (a shared store may make them together): of
/// twelve sessions committed at once, each commit at the version stored is made with its entries,
/// and each at a stale version conflicts and leaves nothing. For a store implementation's tests;
/// it uses sessions named
/// `commit-check-…` (deleted at the end).
///
/// - Throws: ``StoreCheckFailure`` saying what the store got wrong, or its `StoreError`.
public func checkCommitsAtOnce(of store: any SessionStore) async throws {
    let records = (0..<12).map { index in
        SessionRecord(
            id: "commit-check-\(index)", version: 2, tree: [1], appData: [], csrfToken: "token", lastSeq: 1,
            extra: [], createdAt: 1_000, lastUsedAt: 1_000, expiresAt: 9_000_000_000_000)
    }
    for record in records { try await store.create(record, entries: [HistoryRecord(seq: 1, entry: [1])]) }
    /// Whether commit `index` is at a stale version (a conflict).
    func isStale(_ index: Int) -> Bool { index % 4 == 1 }
    let outcomes = await commitAtOnce(
        to: store,
        records.enumerated().map { index, record in
            var next = record
            next.version = 3
            next.tree = [UInt8(index)]
            next.lastSeq = 2
            return (next, isStale(index) ? 1 : 2, [HistoryRecord(seq: 2, entry: [UInt8(index)])])
        })
    for (index, record) in records.enumerated() {
        let stored = try await store.load(record.id)
        let history = try await store.history(record.id, after: 0, limit: 10).map(\.seq)
        let error = outcomes[index]
        let right =
            isStale(index)
            ? error?.isConflict == true && stored == record && history == [1]
            : error == nil && stored?.tree == [UInt8(index)] && history == [1, 2]
        if !right {
            throw StoreCheckFailure(
                description:
                    "commit \(index) (stale: \(isStale(index))) of twelve at once: \(String(describing: error)), stored version \(stored?.version ?? 0), history \(history)"
            )
        }
    }
    for record in records { try await store.delete(record.id) }
}

/// Makes `commits` (each a record, the version it replaces and its entries) on `store` all at
/// once, each in a task of its own: the errors of those that failed, by index.
public func commitAtOnce(
    to store: any SessionStore, _ commits: [(record: SessionRecord, expectedVersion: Int, entries: [HistoryRecord])]
) async -> [Int: StoreError] {
    await withTaskGroup(of: (Int, StoreError?).self) { group in
        for (index, commit) in commits.enumerated() {
            group.addTask {
                do throws(StoreError) {
                    try await store.commit(
                        commit.record, expectedVersion: commit.expectedVersion, entries: commit.entries)
                    return (index, nil)
                } catch {
                    return (index, error)
                }
            }
        }
        var failures: [Int: StoreError] = [:]
        for await (index, error) in group { failures[index] = error }
        return failures
    }
}
