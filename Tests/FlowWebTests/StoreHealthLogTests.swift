import Logging
import Synchronization
import Testing

@testable import FlowWeb

@Suite("Store failures in the log")
struct StoreHealthLogTests {
    @Test("one line when the store starts failing, a reminder every interval, one when it has worked for a while")
    func linesPerOutage() {
        let lines = Mutex<[(Logger.Level, String)]>([])
        let log = StoreHealthLog(reminderInterval: .seconds(10), calm: .seconds(2)) { level, line in
            lines.withLock { $0.append((level, line)) }
        }
        let start = ContinuousClock.now
        log.succeeded(at: start)
        log.failed("disk full", at: start)
        log.failed("disk full", at: start + .seconds(1))
        // Reads work between failing writes: not yet the end of the outage.
        log.succeeded(at: start + .seconds(1.5))
        log.failed("disk full", at: start + .seconds(3))
        log.failed("disk full", at: start + .seconds(11))  // the reminder
        log.failed("disk full", at: start + .seconds(12))
        log.succeeded(at: start + .seconds(13))
        log.succeeded(at: start + .seconds(14.5))  // 2.5 s after the last failure: it works again
        log.succeeded(at: start + .seconds(20))
        log.failed("unreachable", at: start + .seconds(30))  // a new outage

        let seen = lines.withLock { $0 }
        #expect(seen.map(\.0) == [.error, .error, .notice, .error])
        #expect(seen[0].1.hasSuffix("answered 503 until it works again: disk full"))
        #expect(seen[1].1.contains("still fails after 11.0 seconds: 4 requests answered 503 so far"))
        #expect(seen[2].1.contains("works again after 12.0 seconds of failures (5 requests answered 503)"))
        #expect(seen[3].1.hasSuffix(": unreachable"))
    }
}
