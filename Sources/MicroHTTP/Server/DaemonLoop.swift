import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread that runs one libmicrohttpd daemon: it waits for the daemon's events itself and
/// calls `MHD_run`, which then only handles what is ready and never waits.
///
/// Why not libmicrohttpd's own thread (`MHD_USE_INTERNAL_POLLING_THREAD`): in 0.9.75 that thread
/// reads its epoll set 128 events at a time, in a loop that reads again, with the same timeout,
/// after any read of exactly 128 events, and handles none of them in between. When exactly 128
/// connections became ready together (a burst at 256 connections over two threads), the second
/// read waited for an unrelated event or for the connection timeout, 30 seconds, while 128
/// requests sat unread. `MHD_run` reads with a timeout of 0, so its loop ends; this thread
/// waits instead, on the daemon's epoll descriptor (readable while it holds events), for as long
/// as `MHD_get_timeout` allows and at most until the next check of the connections' deadlines
/// (``ConnectionDeadlines``, every second), until a ``LoopWakeup`` signal, or until ``stop()``.
///
/// That wait is one more system call per turn (see Benchmarks/README.md), so while
/// the daemon holds few connections the loop lets libmicrohttpd wait after all (`MHD_run_wait`):
/// with at most ``fewConnections`` connections its epoll set holds at most 127 descriptors (they,
/// the listening socket and the wakeup's pipe), so no read can return 128 events. The pipe is in
/// that set with a NULL event pointer, which libmicrohttpd 0.9 skips, having read 0.9.75's
/// source; other versions always take the first way.
final class DaemonLoop: @unchecked Sendable {
    // @unchecked: `daemon` is used by the loop's thread alone until `stop()` has joined it, and
    // `thread` is written once by `start()`, which happens before `stop()` (the server's state
    // lock orders them).
    private let daemon: OpaquePointer
    /// The thread's name.
    private let name: String
    private let epollDescriptor: Int32
    /// Signalled by resumed connections and by ``stop()``.
    private let wakeup: LoopWakeup
    /// The deadlines of the daemon's connections, checked every ``sweepInterval`` milliseconds.
    private let deadlines: ConnectionDeadlines
    static let sweepInterval: UInt64 = 1000
    private let stopping = Atomic<Bool>(false)
    private var thread = pthread_t()
    /// Whether libmicrohttpd's own wait may be used while few connections are open: the wakeup's
    /// pipe is in its epoll set, and it is a version whose epoll loop is known (see above).
    private let daemonMayWait: Bool
    /// The most connections for which libmicrohttpd's own wait is safe: 128 events, less the
    /// listening socket and the wakeup's pipe, less one to spare.
    static let fewConnections: UInt32 = 125

    /// Starts a thread named `name` running `daemon`, a daemon started with `MHD_USE_EPOLL` and
    /// without a thread of its own, which waits for `wakeup` along with the daemon's events;
    /// `nil` when the daemon has no epoll descriptor or the system refuses a thread.
    static func start(_ daemon: OpaquePointer, name: String, context: DaemonContext) -> DaemonLoop? {
        let epoll = CMicroHTTPD_epoll_fd(daemon)
        guard epoll >= 0 else { return nil }
        let loop = DaemonLoop(
            daemon: daemon, name: name, epoll: epoll, wakeup: context.wakeup, deadlines: context.deadlines)
        let started = pthread_create(
            &loop.thread, nil,
            { raw in
                let loop = Unmanaged<DaemonLoop>.fromOpaque(raw!).takeRetainedValue()
                CMicroHTTPD_name_current_thread(loop.name)
                loop.run()
                return nil
            }, Unmanaged.passRetained(loop).toOpaque())
        guard started == 0 else {
            Unmanaged.passUnretained(loop).release()  // the thread that would have taken it
            return nil
        }
        return loop
    }

    private init(daemon: OpaquePointer, name: String, epoll: Int32, wakeup: LoopWakeup, deadlines: ConnectionDeadlines)
    {
        self.daemon = daemon
        self.name = name
        self.epollDescriptor = epoll
        self.wakeup = wakeup
        self.deadlines = deadlines
        let version = MHD_get_version().map { String(cString: $0) } ?? ""
        daemonMayWait = version.hasPrefix("0.9.") && CMicroHTTPD_add_wakeup_to_epoll(epoll, wakeup.descriptor) == 0
    }

    /// Ends the loop and waits for its thread. Call once, before `MHD_stop_daemon`: afterwards
    /// nothing runs the daemon.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wakeup.signal()
        pthread_join(thread, nil)
    }

    private func run() {
        var descriptors = [
            pollfd(fd: epollDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        var timeout: UInt64 = 0
        var connections = CMicroHTTPD_connection_count(daemon)
        var nextSweep = ConnectionDeadlines.now() + Self.sweepInterval
        while !stopping.load(ordering: .acquiring) {
            let now = ConnectionDeadlines.now()
            if now >= nextSweep {
                deadlines.closeOverdue(now: now)
                nextSweep = now + Self.sweepInterval
            }
            let untilSweep = Int32(clamping: nextSweep - now)
            if daemonMayWait && connections <= Self.fewConnections {
                _ = MHD_run_wait(daemon, untilSweep)
                // The pipe stays readable until drained, so a signal after this check wakes the
                // next wait at once.
                if wakeup.isPending { wakeup.drain() }
                connections = CMicroHTTPD_connection_count(daemon)
                continue
            }
            _ = MHD_run(daemon)
            // A run that closed connections runs again before any wait: at its connection limit
            // the daemon took its listening socket out of its epoll set, and only the start of a
            // run puts it back.
            let before = connections
            connections = CMicroHTTPD_connection_count(daemon)
            if connections < before { continue }
            // 0 while connections already hold data to handle; nothing to wait for then.
            let wait =
                MHD_get_timeout(daemon, &timeout) == MHD_Result.YES
                ? min(Int32(clamping: timeout), untilSweep) : untilSweep
            guard wait != 0 else { continue }
            if poll(&descriptors, 2, wait) > 0, descriptors[1].revents != 0 { wakeup.drain() }
        }
    }
}
