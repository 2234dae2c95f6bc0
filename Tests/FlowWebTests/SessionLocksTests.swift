import Synchronization
import Testing

@testable import FlowWeb

@Suite("Session locks")
struct SessionLocksTests {
    struct Failure: Error {}

    /// A flag one task raises and others wait for.
    final class Flag: Sendable {
        private let raised = Atomic<Bool>(false)
        func raise() { raised.store(true, ordering: .sequentiallyConsistent) }
        func wait() async { while !raised.load(ordering: .sequentiallyConsistent) { await Task.yield() } }
    }

    /// What the bodies saw: how many were inside at once, at most, and the order they ran in.
    final class Log: Sendable {
        let counts = Mutex<(inside: Int, most: Int)>((0, 0))
        let order = Mutex<[Int]>([])
    }

    @Test("a session's bodies run one at a time, in the order they asked for the lock")
    func oneAtATimeInOrder() async throws {
        let locks = SessionLocks()
        let log = Log()
        let release = Flag()
        // The first body holds the lock until the waiters have queued behind it.
        let first = Task {
            await locks.withLock("s") {
                await release.wait()
                log.order.withLock { $0.append(0) }
            }
        }
        while locks.waiterCount("s") == nil { await Task.yield() }
        var waiters: [Task<Void, Never>] = []
        for index in 1...20 {
            waiters.append(
                Task {
                    await locks.withLock("s") {
                        log.counts.withLock {
                            $0.inside += 1
                            $0.most = max($0.most, $0.inside)
                        }
                        await Task.yield()
                        log.order.withLock { $0.append(index) }
                        log.counts.withLock { $0.inside -= 1 }
                    }
                })
            // Each waiter queues before the next one starts.
            while locks.waiterCount("s") ?? 0 < index { await Task.yield() }
        }
        release.raise()
        await first.value
        for waiter in waiters { await waiter.value }
        #expect(log.order.withLock { $0 } == Array(0...20))
        #expect(log.counts.withLock { $0.most } == 1)
        #expect(locks.waiterCount("s") == nil)
    }

    @Test("different sessions hold their locks at the same time")
    func sessionsInParallel() async {
        let locks = SessionLocks()
        let release = Flag()
        let a = Task { await locks.withLock("a") { await release.wait() } }
        while locks.waiterCount("a") == nil { await Task.yield() }
        let ranInB = await locks.withLock("b") { true }
        #expect(ranInB)
        release.raise()
        await a.value
    }

    @Test("a body that throws releases the lock")
    func throwingBodyReleases() async {
        let locks = SessionLocks()
        await #expect(throws: Failure.self) {
            try await locks.withLock("s") { throw Failure() }
        }
        #expect(locks.waiterCount("s") == nil)
        #expect(await locks.withLock("s") { 7 } == 7)
    }
}
