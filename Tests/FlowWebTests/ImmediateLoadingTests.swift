import FlowStore
@testable import FlowWeb
import Testing

@Suite("Reading sessions on the calling thread")
struct ImmediateLoadingTests {
    private func record(version: Int, lastUsedAt: Int64 = 1_000, expiresAt: Int64 = 9_000) -> SessionRecord {
        SessionRecord(
            id: String(repeating: "ab", count: 24), version: version, tree: [1, 2, 3], appData: [4], csrfToken: String(repeating: "c", count: 32),
            lastSeq: 1, extra: [5], createdAt: 500, lastUsedAt: lastUsedAt, expiresAt: expiresAt)
    }

    @Test("the memory store's stamp is its record's version and times, and follows commits and renewals")
    func memoryStamp() throws {
        let store = MemorySessionStore()
        try store.create(record(version: 1), entries: [])
        let id = record(version: 1).id
        #expect(try store.stampImmediately(id) == SessionStamp(record(version: 1)))
        try store.commit(record(version: 2, lastUsedAt: 2_000, expiresAt: 12_000), expectedVersion: 1, entries: [])
        #expect(try store.stampImmediately(id) == SessionStamp(version: 2, lastUsedAt: 2_000, expiresAt: 12_000))
        #expect(try store.stampImmediately("nobody") == nil)
    }

    @Test("a thread's own copy of a record equals the record, in storage of its own")
    func privateRecord() {
        let shared = record(version: 3)
        let copy = PrivateRecord(shared).record
        #expect(copy == shared)
        shared.tree.withUnsafeBufferPointer { original in
            copy.tree.withUnsafeBufferPointer { own in #expect(original.baseAddress != own.baseAddress) }
        }
        var (sharedToken, ownToken) = (shared.csrfToken, copy.csrfToken)
        let sameTokenStorage = sharedToken.withUTF8 { a in ownToken.withUTF8 { b in a.baseAddress == b.baseAddress } }
        #expect(!sameTokenStorage)
    }
}
