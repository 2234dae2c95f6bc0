import CMicroHTTPD
import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server over libmicrohttpd that hands complete requests to an async
/// ``HTTPResponder``.
///
/// One libmicrohttpd epoll daemon per thread, each run by a `DaemonLoop` and accepting on a
/// listening socket of its own (`ListeningSockets`). A request whose body is complete is handed to
/// the responder in a Swift task while its connection is suspended, and resumed once the
/// answer is ready, so no server thread ever waits for Swift work.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: router)
/// try server.start()
/// print("listening on http://127.0.0.1:\(server.port)")
/// await server.run()          // returns after shutdown() and a graceful stop
/// ```
///
/// Call ``stop()`` (or ``shutdown()`` while ``run()`` waits) before dropping a started server:
/// the daemon keeps it alive until then.
public final class HTTPServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: Configuration
    let responder: any HTTPResponder
    let logger: Logger
    let state = Mutex(State())
    /// Connections per client address, counted across every daemon.
    let clientLimit: ClientConnectionLimit

    struct State {
        enum Phase { case idle, running, stopping, stopped }
        var phase = Phase.idle
        /// The daemons, one per thread, each serving its own listening socket.
        var daemons: [DaemonHandle] = []
        /// The listening sockets, closed after the daemons stop.
        var sockets: [Int32] = []
        var port = 0
        /// Streamed responses still open, which a stop ends.
        var streams: [ObjectIdentifier: ResponseStream] = [:]
        /// Set when the stop begins: streams are ended, and new ones end at once.
        var endsStreams = false
        var shutdownRequested = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var stopWaiters: [CheckedContinuation<StopReport, Never>] = []
        /// What the stop found, once stopped.
        var report = StopReport()
    }

    /// A server that will answer with `responder` once started.
    public init(
        configuration: Configuration = Configuration(), responder: some HTTPResponder,
        logger: Logger = Logger(label: "MicroHTTP")
    ) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        clientLimit = ClientConnectionLimit(
            limit: configuration.connectionsPerClient,
            unlimited: Set(configuration.unlimitedClients.compactMap(ClientAddress.init(ip:))))
    }

    /// The port the server listens on (the chosen one when configured with `0`); `0` before
    /// ``start()``.
    public var port: Int { state.withLock { $0.port } }

    /// Binds the configured address and starts serving.
    ///
    /// - Throws: ``HTTPServerError`` when the configuration is invalid, the host does not
    ///   resolve, or the address cannot be bound.
    public func start() throws(HTTPServerError) {
        let configuration = self.configuration
        try validate(configuration)
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw .unresolvableHost(configuration.host)
        }
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            guard state.phase == .idle else { throw .alreadyStarted }
            // A thread per daemon, each with a socket of its own (see `ListeningSockets` for
            // why), and never more threads than connections allowed.
            let threads = min(configuration.threads, configuration.connectionLimit)
            let sockets = try ListeningSockets(
                address: address, count: threads, host: configuration.host, requestedPort: configuration.port)
            // Balanced in `stop()`: libmicrohttpd's callbacks use the server through their
            // daemon's context, which does not retain it.
            let me = Unmanaged.passRetained(self)
            var daemons: [DaemonHandle] = []
            for (index, socket) in sockets.descriptors.enumerated() {
                // The connection limit is shared out; the first daemons take the remainder.
                let share =
                    configuration.connectionLimit / threads + (index < configuration.connectionLimit % threads ? 1 : 0)
                guard let daemon = startDaemon(index, socket: socket, connectionLimit: share) else {
                    // Quiesced first, a daemon leaves its socket to us (else its stop closes it).
                    daemons.forEach { $0.stop(keepingSocket: true) }
                    sockets.descriptors.forEach { close($0) }
                    me.release()
                    throw .startFailed(host: configuration.host, port: sockets.port)
                }
                daemons.append(daemon)
            }
            state.daemons = daemons
            state.sockets = sockets.descriptors
            state.port = sockets.port
            state.phase = .running
        }
        logger.debug("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
    }

    /// Starts daemon number `index` on the listening `socket`, with the thread that runs it; `nil`
    /// when libmicrohttpd or the system refuses (nothing of it is left running then).
    private func startDaemon(_ index: Int, socket: Int32, connectionLimit: Int) -> DaemonHandle? {
        // No `MHD_USE_INTERNAL_POLLING_THREAD`: a `DaemonLoop` runs the daemon (see there why).
        let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        guard let context = DaemonContext(server: self, clientLimit: clientLimit) else { return nil }
        let cls = Unmanaged.passUnretained(context).toOpaque()
        var options = daemonOptions(configuration, daemon: cls, socket: socket, connectionLimit: connectionLimit)
        let acceptPolicy: MHD_AcceptPolicyCallback? = clientLimit.limit > 0 ? microHTTPAcceptPolicy : nil
        let limit = Unmanaged.passUnretained(clientLimit).toOpaque()
        guard
            let daemon = CMicroHTTPD_start(UInt32(flags), 0, acceptPolicy, limit, microHTTPAccessHandler, cls, &options)
        else {
            return nil
        }
        guard let loop = DaemonLoop.start(daemon, name: "MicroHTTP-\(index)", context: context) else {
            _ = MHD_quiesce_daemon(daemon)  // leaves the socket to the caller
            MHD_stop_daemon(daemon)
            return nil
        }
        return DaemonHandle(pointer: daemon, context: context, loop: loop)
    }

    /// Asks a running ``run()`` to stop gracefully. Safe from any thread or signal source.
    public func shutdown() {
        let waiters = state.withLock { state in
            state.shutdownRequested = true
            defer { state.shutdownWaiters = [] }
            return state.shutdownWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Serves until ``shutdown()`` is called, then stops gracefully (see ``stop()``) and returns
    /// what the stop found.
    @discardableResult
    public func run() async -> StopReport {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyRequested = state.withLock { state in
                if state.shutdownRequested { return true }
                state.shutdownWaiters.append(continuation)
                return false
            }
            if alreadyRequested { continuation.resume() }
        }
        return await stop()
    }

    /// Stops gracefully: stops accepting connections, lets in-flight requests finish for up to
    /// ``Configuration/shutdownGracePeriod``, answers requests still waiting with `503`, then
    /// closes every connection. Returns within the grace period and about three seconds more,
    /// whatever a responder does: requests that did not finish are logged with their route and
    /// listed in the report. Idempotent; concurrent callers all return once it is stopped.
    @discardableResult
    public func stop() async -> StopReport {
        enum Step {
            case stopNow(daemons: [DaemonHandle], sockets: [Int32])
            case wait
            case done(StopReport)
        }
        let step: Step = state.withLock { state in
            switch state.phase {
            case .idle, .stopped:
                state.phase = .stopped
                return .done(state.report)
            case .stopping:
                return .wait
            case .running:
                state.phase = .stopping
                return .stopNow(daemons: state.daemons, sockets: state.sockets)
            }
        }
        switch step {
        case .done(let report):
            return report
        case .wait:
            return await withCheckedContinuation { (continuation: CheckedContinuation<StopReport, Never>) in
                let stopped: StopReport? = state.withLock { state in
                    if state.phase == .stopped { return state.report }
                    state.stopWaiters.append(continuation)
                    return nil
                }
                if let stopped { continuation.resume(returning: stopped) }
            }
        case .stopNow(let daemons, let sockets):
            return await stopDaemons(daemons, sockets: sockets)
        }
    }

    private func stopDaemons(_ daemons: [DaemonHandle], sockets: [Int32]) async -> StopReport {
        // Stops accepting. MHD's threads may still touch the quiesced sockets, so microhttpd.h
        // requires closing them only after MHD_stop_daemon has returned.
        daemons.forEach { _ = MHD_quiesce_daemon($0.pointer) }
        let streams = state.withLock { state in
            state.endsStreams = true
            return Array(state.streams.values)
        }
        streams.forEach { $0.finish() }
        let clock = ContinuousClock()
        await waitForInFlightRequests(on: daemons, until: clock.now + configuration.shutdownGracePeriod)
        var report = StopReport()
        report.unfinishedRequests = answerSuspendedRequests(on: daemons)
        for route in report.unfinishedRequests {
            logger.error(
                "stopping: a request did not finish within the grace period and was answered 503",
                metadata: ["route": "\(route)"])
        }
        if !report.unfinishedRequests.isEmpty {
            await waitForInFlightRequests(on: daemons, until: clock.now + .seconds(1))
        }
        // A thread stuck in a responder cannot be joined: its daemon is left as it is.
        if await Self.stop(daemons, within: .seconds(2)) {
            sockets.forEach { close($0) }
            Unmanaged.passUnretained(self).release()
        } else {
            for daemon in daemons {
                guard let route = daemon.context.handing.withLock({ $0?.route }) else { continue }
                report.stuckThreads.append(route)
                logger.critical(
                    "stopping: a server thread is stuck in a request and was abandoned", metadata: ["route": "\(route)"]
                )
            }
            if report.stuckThreads.isEmpty { report.stuckThreads.append("(a server thread did not stop)") }
        }
        let waiters = state.withLock { state in
            state.phase = .stopped
            state.daemons = []
            state.sockets = []
            state.report = report
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        waiters.forEach { $0.resume(returning: report) }
        logger.debug("stopped")
        return report
    }

    /// Keeps `stream` among the open streams until it closes; ends it at once when the server is
    /// stopping.
    func keep(_ stream: ResponseStream) {
        let key = ObjectIdentifier(stream)
        let ending = state.withLock { state in
            if !state.endsStreams { state.streams[key] = stream }
            return state.endsStreams
        }
        if ending { return stream.finish() }
        stream.onClose { [weak self] in _ = self?.state.withLock { $0.streams.removeValue(forKey: key) } }
    }

    /// Answers every connection still waiting for its responder with `503`, from now on refuses
    /// new work, and returns the routes of the requests so answered.
    private func answerSuspendedRequests(on daemons: [DaemonHandle]) -> [String] {
        var routes: [String] = []
        for daemon in daemons {
            daemon.context.suspended.withLock { suspended in
                suspended.refusesWork = true
                let contexts = suspended.contexts.values
                suspended.contexts = [:]
                for context in contexts {
                    context.handoff.withLock { handoff in
                        if case .suspended = handoff {
                            handoff = .ready(.text("The server is shutting down", status: .serviceUnavailable))
                        }
                    }
                    context.connection.resume()
                }
                routes += contexts.map(\.route)
            }
        }
        return routes.sorted()
    }

    /// Stops the daemons and their loops, on a thread of its own (joining a loop's thread
    /// blocks); `false` when they have not all stopped within `limit` (a thread stuck in a
    /// responder), and then the rest is left to that thread.
    private static func stop(_ daemons: [DaemonHandle], within limit: Duration) async -> Bool {
        let outcome = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        @Sendable func finish(_ stopped: Bool) { outcome.withLock { $0.take() }?.resume(returning: stopped) }
        return await withCheckedContinuation { continuation in
            outcome.withLock { $0 = continuation }
            DispatchQueue.global().async {
                daemons.forEach { $0.stop() }
                finish(true)
            }
            let (seconds, attoseconds) = limit.components
            DispatchQueue.global().asyncAfter(
                deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            ) {
                finish(false)
            }
        }
    }

    private func waitForInFlightRequests(on daemons: [DaemonHandle], until deadline: ContinuousClock.Instant) async {
        func inFlight() -> Int { daemons.reduce(0) { $0 + $1.context.inFlight.load(ordering: .acquiring) } }
        while inFlight() > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func validate(_ configuration: Configuration) throws(HTTPServerError) {
        guard (0...65535).contains(configuration.port) else {
            throw .invalidConfiguration("port \(configuration.port) is not in 0...65535")
        }
        guard configuration.threads >= 1 else {
            throw .invalidConfiguration("threads must be at least 1, got \(configuration.threads)")
        }
        guard configuration.maxBodySize >= 0 else {
            throw .invalidConfiguration("the body limit must not be negative")
        }
        guard configuration.connectionTimeout >= 1, configuration.connectionLimit >= 1, configuration.readTimeout >= 1
        else {
            throw .invalidConfiguration("the connection timeout and limit and the read timeout must be at least 1")
        }
        if let bad = configuration.unlimitedClients.first(where: { ClientAddress(ip: $0) == nil }) {
            throw .invalidConfiguration("\(bad) in the clients without a connection limit is not an IP address")
        }
        guard configuration.connectionsPerClient >= 0 else {
            throw .invalidConfiguration("the connections per client must not be negative (0: no limit)")
        }
    }
}

/// What a stop found: requests that did not finish within the grace period (answered `503`),
/// and server threads stuck in a responder (abandoned, with the request they were handling).
public struct StopReport: Sendable, Hashable {
    /// The method and path of each request answered `503` because it did not finish in time.
    public var unfinishedRequests: [String] = []
    /// The method and path of the request each stuck server thread was handling.
    public var stuckThreads: [String] = []

    /// Whether every request finished and every thread stopped.
    public var isClean: Bool { unfinishedRequests.isEmpty && stuckThreads.isEmpty }

    /// An empty report.
    public init() {}
}
