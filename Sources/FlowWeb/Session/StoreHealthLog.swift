import Logging
import Synchronization

/// What the logs say about the session store failing: one error when it starts failing (the
/// first reason), a reminder every `reminderInterval` while it goes on (how many requests were
/// answered `503` meanwhile), and a notice when it works again: when it served a request
/// `calm` after its last failure (a store that reads but cannot write serves some requests
/// between its failures). Never a line per request: an outage under load would bury everything
/// else.
final class StoreHealthLog: Sendable {
    private struct Outage {
        var since: ContinuousClock.Instant
        var lastReminder: ContinuousClock.Instant
        var lastFailure: ContinuousClock.Instant
        var failures: Int
        var reason: String
    }

    private let report: @Sendable (Logger.Level, String) -> Void
    private let reminderInterval: Duration
    private let calm: Duration
    /// Read on every store success; written only when the store starts or stops failing.
    private let failing = Atomic<Bool>(false)
    private let outage = Mutex<Outage?>(nil)

    /// A log that writes to `logger`.
    convenience init(logger: Logger, reminderInterval: Duration = .seconds(10), calm: Duration = .seconds(2)) {
        self.init(reminderInterval: reminderInterval, calm: calm) { level, line in logger.log(level: level, "\(line)") }
    }

    /// A log that hands each line to `report`.
    init(reminderInterval: Duration, calm: Duration, report: @escaping @Sendable (Logger.Level, String) -> Void) {
        self.report = report
        self.reminderInterval = reminderInterval
        self.calm = calm
    }

    /// Notes a request the store failed at `now`, for `reason`.
    func failed(_ reason: String, at now: ContinuousClock.Instant = .now) {
        enum Line {
            case started
            case reminder(Int, Duration)
        }
        let line: Line? = outage.withLock { outage in
            guard var current = outage else {
                outage = Outage(since: now, lastReminder: now, lastFailure: now, failures: 1, reason: reason)
                failing.store(true, ordering: .relaxed)
                return .started
            }
            current.failures += 1
            current.reason = reason
            current.lastFailure = now
            defer { outage = current }
            guard now - current.lastReminder >= reminderInterval else { return nil }
            current.lastReminder = now
            return .reminder(current.failures, now - current.since)
        }
        switch line {
        case .started:
            report(
                .error,
                "the session store fails; requests that need it are answered 503 until it works again: \(reason)")
        case .reminder(let failures, let duration):
            report(
                .error,
                "the session store still fails after \(duration): \(failures) requests answered 503 so far: \(reason)")
        case nil:
            break
        }
    }

    /// Notes a request the store served at `now`.
    func succeeded(at now: @autoclosure () -> ContinuousClock.Instant = .now) {
        guard failing.load(ordering: .relaxed) else { return }
        let now = now()
        let ended: Outage? = outage.withLock { outage in
            guard let current = outage, now - current.lastFailure >= calm else { return nil }
            outage = nil
            failing.store(false, ordering: .relaxed)
            return current
        }
        guard let ended else { return }
        report(
            .notice,
            "the session store works again after \(ended.lastFailure - ended.since) of failures (\(ended.failures) requests answered 503)"
        )
    }
}
