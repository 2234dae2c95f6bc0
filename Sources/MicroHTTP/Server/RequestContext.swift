import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of one request between libmicrohttpd's callbacks, kept in `*con_cls`.
///
/// Created by the URI-log callback (so it also holds the raw request target), retained there
/// and released by the completion callback.
///
/// `@unchecked Sendable` is safe because libmicrohttpd calls back for one connection from one
/// thread at a time, and every field but `handoff` is only touched in those callbacks; the
/// responder's task hands its answer over through the `Mutex`-guarded `handoff`.
final class RequestContext: @unchecked Sendable {
    enum Stage {
        /// The URI is known; headers are not yet read.
        case started
        /// Headers read; body bytes may follow.
        case receiving
        /// Suspended while the responder works.
        case waiting
        /// A response was queued.
        case answered
    }

    let target: String
    let connection: ConnectionHandle
    /// The connection's record (its deadline), when libmicrohttpd told us it opened.
    let openConnection: OpenConnection?
    // Only libmicrohttpd's callbacks for this connection touch these, one call at a time (see
    // above), so accesses cannot overlap and skip the dynamic exclusivity checks.
    @exclusivity(unchecked) var stage = Stage.started
    @exclusivity(unchecked) var headers = HTTPHeaders()
    @exclusivity(unchecked) var body: [UInt8] = []
    /// Body bytes dropped because the body went over the limit (then `body` stays empty).
    @exclusivity(unchecked) var discardedBytes = 0
    /// The method, once the request is handed to the responder (for the log of a request that
    /// does not finish before the server stops).
    @exclusivity(unchecked) var method = HTTPMethod.get
    /// How far past the body limit a client may go on sending before it is disconnected.
    static let discardLimit = 16 << 20
    let handoff = Mutex(Handoff.responderRunning)

    /// Where the responder's answer is, between the responder's task and libmicrohttpd.
    enum Handoff {
        /// The responder works and the access handler has not yet suspended the connection.
        case responderRunning
        /// The connection is suspended until the responder answers.
        case suspended
        /// The answer is ready for the access handler to queue.
        case ready(Response)
        /// The answer was queued.
        case taken
    }

    /// The responder's answer, if it is ready; marks it taken.
    func takeResponse() -> Response? {
        handoff.withLock { handoff in
            guard case .ready(let response) = handoff else { return nil }
            handoff = .taken
            return response
        }
    }

    /// The method and path, without the query (which may carry tokens), for logs.
    var route: String { "\(method) \(target.prefix { $0 != "?" })" }

    init(target: String, connection: ConnectionHandle, openConnection: OpenConnection?) {
        self.target = target
        self.connection = connection
        self.openConnection = openConnection
    }
}

/// A libmicrohttpd connection pointer that may cross into the responder's task.
///
/// `@unchecked Sendable`: the task only uses it to ``resume()``, which libmicrohttpd allows from
/// any thread, and only while the connection is suspended and its daemon running (the daemon's
/// `suspended` lock and its `resuming` count guarantee that, see `HTTPServer.finish`).
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The connection's daemon. Not retained: it outlives the daemon's connections.
    unowned(unsafe) let daemon: DaemonContext

    /// Resumes the suspended connection and wakes its daemon's loop to handle it.
    func resume() {
        MHD_resume_connection(pointer)
        daemon.wakeup.signal()
    }
}

/// A running daemon's pointer, kept in the server's state.
///
/// `@unchecked Sendable`: it is only used under the server's lock, and libmicrohttpd's daemon
/// functions used with it (`MHD_quiesce_daemon`, `MHD_stop_daemon`) are thread-safe.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The daemon's callbacks' `cls`, alive as long as the handle.
    let context: DaemonContext
    /// The thread that runs the daemon, to stop before the daemon.
    let loop: DaemonLoop

    /// Stops the loop, then the daemon (which closes its connections). When `keepingSocket`,
    /// the daemon is quiesced first, so that it leaves its listening socket open.
    func stop(keepingSocket: Bool = false) {
        // An answer taken out of the suspended connections before the stop answered them may
        // still be resuming its connection (a write to a pipe): the daemon must outlive it.
        while context.resuming.load(ordering: .acquiring) > 0 { sched_yield() }
        loop.stop()
        if keepingSocket { _ = MHD_quiesce_daemon(pointer) }
        MHD_stop_daemon(pointer)
    }
}
