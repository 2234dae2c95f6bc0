import FlowStore

/// What a ``checkQuarantine(of:)`` found wrong with a store.
public struct StoreCheckFailure: Error, CustomStringConvertible {
    /// What the store did, and what it should have done.
    public let description: String
}

/// Checks a `SessionStore`'s quarantine (sessions the app could no longer read, set aside): a
/// copy is kept with its history, reason and times; a second copy of the same version leaves the
/// first as it is; copies of later versions are kept beside it, oldest first; the session itself
/// is untouched; and purging drops the expired copies. For a store implementation's tests; it
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
    func expect(_ condition: Bool, _ failure: @autoclosure () -> String) throws {
        if !condition { throw StoreCheckFailure(description: failure()) }
    }
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
    try await store.delete(id)
}
