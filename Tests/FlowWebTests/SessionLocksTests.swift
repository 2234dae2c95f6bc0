import Synchronization
import Testing

@testable import FlowWeb

@Suite("Session locks")
struct SessionLocksTests {
    /// What each waiter's turn came to, by its change.
    final class Turns: Sendable {
        let byChange = Mutex<[Int: String]>([:])
        func record(_ change: Int, _ turn: String) { byChange.withLock { $0[change] = turn } }
    }

    @Test(
        "a lock released goes to its first waiter with every change queued behind it, in order; the others are served by it"
    )
    func handedOverWithTheQueue() async throws {
        let locks = SessionLocks<Int>()
        let turns = Turns()
        guard case .holds(let none) = await locks.acquire("s", for: 0) else {
            Issue.record("a free lock is taken")
            return
        }
        #expect(none.isEmpty)
        var waiters: [Task<Void, Never>] = []
        for change in 1...5 {
            waiters.append(
                Task {
                    switch await locks.acquire("s", for: change) {
                    case .served:
                        turns.record(change, "served")
                    case .holds(let queued):
                        turns.record(change, "holds \(queued.map(\.change))")
                        for waiter in queued { waiter.served() }
                        locks.release("s")
                    }
                })
            // Each waiter queues before the next one starts.
            while locks.waiterCount("s") ?? 0 < change { await Task.yield() }
        }
        locks.release("s")
        for waiter in waiters { await waiter.value }
        #expect(
            turns.byChange.withLock { $0 } == [
                1: "holds [2, 3, 4, 5]", 2: "served", 3: "served", 4: "served", 5: "served",
            ])
        #expect(locks.waiterCount("s") == nil, "released with nobody queued, the lock is free")
    }

    @Test("different sessions hold their locks at the same time")
    func sessionsInParallel() async {
        let locks = SessionLocks<Int>()
        guard case .holds = await locks.acquire("a", for: 1), case .holds = await locks.acquire("b", for: 2) else {
            Issue.record("free locks are taken")
            return
        }
        #expect(locks.waiterCount("a") == 0 && locks.waiterCount("b") == 0)
        locks.release("a")
        locks.release("b")
        #expect(locks.waiterCount("a") == nil && locks.waiterCount("b") == nil)
        #expect(locks.take("a"), "a free lock is taken at once")
        #expect(!locks.take("a"), "a held one is not")
        locks.release("a")
    }
}
