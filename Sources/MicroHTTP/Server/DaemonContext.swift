import Synchronization

/// What one daemon's callbacks receive as `cls`: the server, the daemon's own count of the
/// requests in flight on it, its connections' deadlines, and the wakeup of the loop that runs it.
///
/// A counter per daemon, so per thread: with one counter for the server, every request wrote
/// the same cache line from every thread, twice, and the threads passed it back and forth. The
/// graceful stop adds the counters up.
final class DaemonContext: Sendable {
    /// The server. Not retained: a started server holds itself (see `HTTPServer.start()`) and
    /// its daemon contexts until its daemons have stopped, so it outlives every callback.
    unowned(unsafe) let server: HTTPServer
    /// Requests between their URI and their completion on this daemon.
    let inFlight = Atomic<Int>(0)
    /// Wakes the daemon's ``DaemonLoop``.
    let wakeup: LoopWakeup
    /// The request the daemon's thread is handing to the responder, while it does: what a stop
    /// that finds the thread stuck reports.
    let handing = Mutex<RequestContext?>(nil)
    /// The daemon's connections suspended while their responder works, and whether the stop
    /// answered them (later requests then get `503`): a lock per daemon, so an answer handed back
    /// from another thread contends only with its own daemon's thread.
    let suspended = Mutex(SuspendedConnections())
    /// Answers taken out of ``suspended`` whose connection is being resumed, outside the lock:
    /// the daemon stops only once there are none (see `DaemonHandle.stop`).
    let resuming = Atomic<Int>(0)
    /// Keeps the next allocation off the counter's cache line.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// The deadlines of the daemon's connections.
    let deadlines: ConnectionDeadlines
    /// The per-client connection limit, shared by all of the server's daemons.
    let clientLimit: ClientConnectionLimit

    /// A context for a daemon of `server`, or `nil` when the system refuses the wakeup's pipe.
    init?(server: HTTPServer, clientLimit: ClientConnectionLimit) {
        guard let wakeup = LoopWakeup() else { return nil }
        self.server = server
        self.wakeup = wakeup
        self.clientLimit = clientLimit
        deadlines = ConnectionDeadlines(
            readTimeout: server.configuration.readTimeout, idleTimeout: server.configuration.connectionTimeout)
    }
}

/// A daemon's suspended connections (see ``DaemonContext/suspended``).
struct SuspendedConnections: ~Copyable {
    /// Connections suspended while their responder works, by their request context.
    var contexts: [ObjectIdentifier: RequestContext] = [:]
    /// Set once the stop has answered every suspended connection: later requests get `503`.
    var refusesWork = false
}
