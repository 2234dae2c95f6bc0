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

    @Test(
        "a call admitted before an outage fails at once, and its failure does not find the database unreachable again")
    func admittedBeforeAnOutage() async throws {
        let reachability = Reachability()
        let admitted = try #require(reachability.admission())
        let found = ContinuousClock.now
        #expect(reachability.foundUnreachable(now: found))
        #expect(reachability.admission() == nil)

        // Admitted before the outage, it starts waiting after it: nothing else would fail it.
        let work = WorkUntilCancelled()
        do {
            _ = try await reachability.answer(within: .seconds(60), admitted: admitted) { await work.run() }
            Issue.record("a call admitted before an outage must fail")
        } catch let error as Unreachable {
            guard case .lostMeanwhile = error else { throw error }
        }
        #expect(work.wasCancelled)
        #expect(reachability.waitingCount == 0)

        // The database answers again; the old call's failure (its pool stopped) changes nothing.
        #expect(reachability.startsTry(now: found + Reachability.retryInterval))
        _ = reachability.reached()
        let now = try #require(reachability.admission())
        #expect(now != admitted)
        #expect(!reachability.foundUnreachable(now: .now, admitted: admitted))
        #expect(reachability.admitsCalls)

        // A call admitted since still does, and a call admitted now is answered.
        #expect(try await reachability.answer(within: .seconds(60), admitted: now) { 2 } == 2)
        #expect(reachability.foundUnreachable(now: .now, admitted: now))
        #expect(!reachability.admitsCalls)
    }

    @Test("a call found unreachable while the database is already taken to be unreachable leaves the try alone")
    func tryNotFailedByLateCalls() async throws {
        let reachability = Reachability()
        let admitted = try #require(reachability.admission())
        let found = ContinuousClock.now
        #expect(reachability.foundUnreachable(now: found))
        #expect(reachability.startsTry(now: found + Reachability.retryInterval))
        let attempt = Task {
            try await reachability.answer(within: .seconds(60)) {
                try await Task.sleep(for: .milliseconds(200))
                return 3
            }
        }
        while reachability.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        // Calls admitted before the outage fail late, one without a known admission.
        #expect(!reachability.foundUnreachable(now: .now, admitted: admitted))
        #expect(!reachability.foundUnreachable(now: .now))
        #expect(try await attempt.value == 3, "the try is not failed by them")
    }

    @Test("a call past its deadline fails as timed out, and its work is cancelled")
    func deadline() async throws {
        let reachability = Reachability()
        let work = WorkUntilCancelled()
        let call = Task { try await reachability.answer(within: .milliseconds(50)) { await work.run() } }
        while reachability.waitingCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(60))
        reachability.expire(now: .now)
        do {
            _ = try await call.value
            Issue.record("a call past its deadline must fail")
        } catch let error as Unreachable {
            guard case .timedOut = error else { throw error }
        }
        #expect(work.wasCancelled)
        #expect(reachability.waitingCount == 0)
        #expect(reachability.admitsCalls, "whether a timeout means unreachable is the caller's to say")
    }
}

/// A call's work that sleeps until it is cancelled, and tells whether it was.
private final class WorkUntilCancelled: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// Whether the work was cancelled.
    var wasCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Sleeps for a minute unless cancelled first; answers 1.
    func run() async -> Int {
        await withTaskCancellationHandler {
            try? await Task.sleep(for: .seconds(60))
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
        return 1
    }
}
