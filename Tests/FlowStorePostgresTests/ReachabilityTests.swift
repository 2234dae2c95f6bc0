import Synchronization
import Testing

@testable import FlowStorePostgres

@Suite("Reachability: the circuit breaker of the PostgreSQL store")
struct ReachabilityTests {
    @Test("a call finding the database unreachable fails the calls waiting; calls are refused until a try reaches it")
    func outage() async throws {
        let reachability = Reachability()
        #expect(reachability.admitsCalls)
        #expect(!reachability.startsTry(now: .now + .seconds(60)), "nothing to try while reachable")

        // A call waits for the database while another finds it unreachable.
        let waiting = Task {
            try await reachability.answer(within: .seconds(60)) {
                try await Task.sleep(for: .seconds(60))
                return 1
            }
        }
        while reachability.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let found = ContinuousClock.now
        #expect(reachability.foundUnreachable(now: found), "the first to find it unreachable says so")
        #expect(!reachability.foundUnreachable(now: found + .seconds(1)), "and only the first")
        await #expect(throws: Unreachable.self) { try await waiting.value }
        #expect(!reachability.admitsCalls)

        // Tries: not before the interval, one at a time, the next an interval after a failed one.
        #expect(!reachability.startsTry(now: found))
        let later = found + Reachability.retryInterval
        #expect(reachability.startsTry(now: later))
        #expect(!reachability.startsTry(now: later), "one try at a time")
        reachability.tryFailed(now: later)
        #expect(!reachability.admitsCalls)
        #expect(!reachability.startsTry(now: later + Reachability.retryInterval - .milliseconds(1)))
        #expect(reachability.startsTry(now: later + Reachability.retryInterval))
        let outage = reachability.reached()
        #expect(outage > .zero && outage < .seconds(60))
        #expect(reachability.admitsCalls)
    }

    @Test("a call past its deadline fails as timed out, and its work is cancelled")
    func deadline() async throws {
        let reachability = Reachability()
        let cancelled = Atomic<Bool>(false)
        let call = Task {
            try await reachability.answer(within: .milliseconds(50)) {
                await withTaskCancellationHandler {
                    try? await Task.sleep(for: .seconds(60))
                } onCancel: {
                    cancelled.store(true, ordering: .relaxed)
                }
                return 1
            }
        }
        while reachability.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(60))
        reachability.expire(now: .now)
        do {
            _ = try await call.value
            Issue.record("a call past its deadline must fail")
        } catch let error as Unreachable {
            guard case .timedOut = error else { throw error }
        }
        let wasCancelled = cancelled.load(ordering: .relaxed)
        #expect(wasCancelled)
        #expect(reachability.waitingCount == 0)
        #expect(reachability.admitsCalls, "whether a timeout means unreachable is the caller's to say")
    }
}
