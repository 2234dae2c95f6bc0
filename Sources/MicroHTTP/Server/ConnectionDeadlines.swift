import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open connection of a daemon: its client, its socket, and when it must have sent what it
/// owes. Kept in libmicrohttpd's socket context from the connection's start to its close.
///
/// `@unchecked Sendable`: only the daemon's thread touches it (every callback of a daemon runs
/// on the thread that runs it), and after that thread ended, the one that stops the daemon.
final class OpenConnection: @unchecked Sendable {
    /// The client's address, when the per-client limit counts it.
    let client: ClientAddress?
    /// The socket, shut down when a deadline passes.
    let socket: Int32
    /// Monotonic milliseconds by which the connection must have sent its request (headers and
    /// body), or, between requests, its next request line; 0 while the responder has the request.
    var deadline: UInt64
    /// Requests answered on the connection so far.
    var answered = 0

    init(client: ClientAddress?, socket: Int32, deadline: UInt64) {
        self.client = client
        self.socket = socket
        self.deadline = deadline
    }
}

/// The deadlines of one daemon's connections (see ``HTTPServer/Configuration/readTimeout``):
/// a request must arrive whole within the read timeout of the connection's opening or of its
/// request line, and a kept-alive connection must start its next request within the idle
/// timeout of the last answer. libmicrohttpd's own timeout is one of inactivity: a client that
/// sends a byte now and then would hold its connection for ever.
///
/// Every second the daemon's loop calls ``closeOverdue(now:)``, which shuts down the sockets of
/// connections past their deadline; libmicrohttpd then reads their end and closes them.
final class ConnectionDeadlines: Sendable {
    /// Milliseconds a request may take to arrive.
    let readTimeout: UInt64
    /// Milliseconds a kept-alive connection may wait for its next request.
    let idleTimeout: UInt64
    private let open = Mutex<[ObjectIdentifier: OpenConnection]>([:])

    /// Deadlines of `readTimeout` and `idleTimeout` seconds.
    init(readTimeout: Int, idleTimeout: Int) {
        self.readTimeout = UInt64(readTimeout) * 1000
        self.idleTimeout = UInt64(idleTimeout) * 1000
    }

    /// The record of a connection that just opened, which its request must arrive within the
    /// read timeout of.
    func opened(client: ClientAddress?, socket: Int32) -> OpenConnection {
        let connection = OpenConnection(client: client, socket: socket, deadline: Self.now() + readTimeout)
        open.withLock { $0[ObjectIdentifier(connection)] = connection }
        return connection
    }

    func closed(_ connection: OpenConnection) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// A request line arrived: a later request on a kept-alive connection gets the read timeout
    /// from now (the first one's deadline runs from the opening).
    func requestStarted(on connection: OpenConnection) {
        if connection.answered > 0 { connection.deadline = Self.now() + readTimeout }
    }

    /// The request arrived whole and goes to the responder: no deadline while it works.
    func requestReceived(on connection: OpenConnection) { connection.deadline = 0 }

    /// The answer was sent: the next request must start within the idle timeout.
    func requestAnswered(on connection: OpenConnection) {
        connection.answered += 1
        connection.deadline = Self.now() + idleTimeout
    }

    /// Shuts down the sockets of connections past their deadline at `now`.
    func closeOverdue(now: UInt64) {
        let overdue = open.withLock { $0.values.filter { $0.deadline != 0 && $0.deadline <= now } }
        for connection in overdue {
            connection.deadline = 0
            shutdown(connection.socket, Int32(SHUT_RDWR))
        }
    }

    /// Monotonic milliseconds, from the clock the kernel updates each tick (no system call).
    static func now() -> UInt64 {
        var time = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        #else
        clock_gettime(CLOCK_MONOTONIC, &time)
        #endif
        return UInt64(time.tv_sec) * 1000 + UInt64(time.tv_nsec) / 1_000_000
    }
}
