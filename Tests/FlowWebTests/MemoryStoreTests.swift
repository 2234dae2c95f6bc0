import FlowStore
import FlowTesting
import Testing

/// The memory store passes the checks every store must.
@Suite("Memory session store")
struct MemoryStoreTests {
    @Test("quarantine and pages of sessions")
    func checks() async throws {
        try await checkQuarantine(of: MemorySessionStore())
        try await checkSessionPages(of: MemorySessionStore())
        try await checkFolds(of: MemorySessionStore())
        try await checkCommitsAtOnce(of: MemorySessionStore())
        try await checkConditionalLoad(of: MemorySessionStore())
    }
}
