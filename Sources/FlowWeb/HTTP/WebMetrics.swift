import FlowCore
import Prometheus
import Synchronization

/// The service's metrics in Prometheus form (`GET /metrics`): requests by route and status, a
/// latency histogram by route, navigations by outcome, live sessions, commits that lost to
/// another instance and were applied again, and new sessions refused by the rate limit.
public final class WebMetrics: Sendable {
    /// The registry the metrics live in (add your own to it). Request metrics reach it in
    /// batches (see ``recordPendingRequests()``); `GET /metrics` always shows them all.
    public let registry: PrometheusCollectorRegistry
    private let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]

    /// A request metric's labels.
    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }

    /// The counter and histogram of each route and status, made once: the registry's own
    /// lookup by name and labels costs more than a request's other bookkeeping.
    private let requestHandles = Mutex<[RequestKey: (counter: Counter, histogram: DurationHistogram)]>([:])

    /// Metrics in `registry`.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
    }

    /// Requests observed on each thread, recorded in the registry 32 at a time and whenever
    /// ``text`` or ``recordPendingRequests()`` is read.
    private let requestBatches = RequestBatches(size: 32)

    func recordRequest(route: String, status: Int, duration: Duration) {
        if let full = requestBatches.add(.init(route: route, status: status, duration: duration)) { record(full) }
    }

    /// Records in the registry the requests observed but not recorded yet: request metrics reach
    /// the registry in batches per thread (`text` does this first). Call it before reading
    /// ``registry`` yourself.
    public func recordPendingRequests() {
        requestBatches.drain(record)
    }

    private func record(_ observations: [RequestBatches.Observation]) {
        var last: (key: RequestKey, handles: (counter: Counter, histogram: DurationHistogram))?
        for observation in observations {
            let key = RequestKey(route: observation.route, status: observation.status)
            let handles = last?.key == key ? last!.handles : handles(for: key)
            last = (key, handles)
            handles.counter.increment()
            handles.histogram.record(observation.duration)
        }
    }

    private func handles(for key: RequestKey) -> (counter: Counter, histogram: DurationHistogram) {
        requestHandles.withLock { handles in
            if let cached = handles[key] { return cached }
            let made = (
                counter: registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        namespace: "flowserver", metricName: "http_requests", unitName: "total",
                        helpText: "HTTP requests by route and status"),
                    labels: [("route", key.route), ("status", String(key.status))]),
                histogram: registry.makeDurationHistogram(
                    descriptor: MetricNameDescriptor(
                        namespace: "flowserver", metricName: "http_request_duration", unitName: "seconds",
                        helpText: "Time to answer, by route"),
                    labels: [("route", key.route)], buckets: buckets)
            )
            handles[key] = made
            return made
        }
    }

    /// A counter's name and its labels' names and values, in order.
    private struct CounterKey: Hashable {
        var name: String
        var labels: [String]
    }

    /// The counters of ``count(_:help:labels:by:)``, made once each, as the request handles are:
    /// every commit counts its navigations.
    private let counters = Mutex<[CounterKey: Counter]>([:])

    /// Adds `amount` to counter `flowserver_<name>_total` with `labels`.
    private func count(_ name: String, help: String, labels: [(String, String)] = [], by amount: Int64 = 1) {
        let key = CounterKey(name: name, labels: labels.flatMap { [$0.0, $0.1] })
        let counter = counters.withLock { counters in
            if let cached = counters[key] { return cached }
            let made = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "flowserver", metricName: name, unitName: "total", helpText: help),
                labels: labels)
            counters[key] = made
            return made
        }
        counter.increment(by: amount)
    }

    func recordNavigation(_ outcome: NavigationOutcome) {
        count("navigations", help: "Navigations by outcome", labels: [("outcome", outcome.rawValue)])
    }

    func recordSessionRestart(_ cause: String) {
        count(
            "session_restarts",
            help: "Stored sessions the app could no longer read, set aside and started again, by cause",
            labels: [("cause", cause)])
    }

    func recordLimitRefusal(_ limit: SessionLimit) {
        count(
            "session_limit_refusals",
            help: "Navigations refused because they would take a session past a limit, by limit",
            labels: [("limit", limit.rawValue)])
    }

    func recordCommitConflict() {
        count("commit_conflicts", help: "Commits that lost to another writer of the session and were applied again")
    }

    func recordCommittedTogether(_ changes: Int) {
        count(
            "changes_committed_together",
            help: "Changes that waited for a session's lock together and were answered after one commit",
            by: Int64(changes))
    }

    func recordRateLimited() {
        count(
            "new_sessions_refused",
            help: "New sessions not stored because their client address went over its rate (answered 429)")
    }

    func setLiveSessions(_ count: Int) {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "flowserver", metricName: "sessions", unitName: "live",
                helpText: "Sessions that have not expired")
        ).set(Double(count))
    }

    /// The Prometheus text exposition.
    var text: [UInt8] {
        recordPendingRequests()
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
