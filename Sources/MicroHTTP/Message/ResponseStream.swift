import CMicroHTTPD
import Synchronization

/// A response body sent while it is produced, for as long as both ends want it: Server-Sent
/// Events, a feed. The responder answers with `Response(stream:)`, keeps the stream, and calls
/// ``send(_:)`` from any thread or task; the body goes out chunked.
///
/// No server thread waits on a stream: while there is nothing to send, its connection is
/// suspended, and ``send(_:)`` resumes it. A client that goes away is noticed at the next write,
/// and a client that reads slower than the stream is written is cut off once ``bufferLimit``
/// bytes wait for it. ``onClose(_:)`` tells the responder either way, and when the server stops.
public final class ResponseStream: Sendable {
    private struct State {
        var pending: [UInt8] = []
        /// How much of `pending` has been handed to libmicrohttpd already.
        var handed = 0
        var finished = false
        var closed = false
        /// The connection, while it is suspended for want of something to send.
        var parked: ConnectionHandle?
        var closeHandlers: [@Sendable () -> Void] = []

        var waiting: Int { pending.count - handed }
    }

    private let state = Mutex(State())
    /// The most bytes that may wait for a slow client before its stream is ended.
    public let bufferLimit: Int

    /// A stream that ends a client that lets more than `bufferLimit` bytes wait.
    public init(bufferLimit: Int = 256 << 10) {
        self.bufferLimit = bufferLimit
    }

    /// Queues `bytes` to be sent; `false` when the stream has ended (the client went away, the
    /// stream was finished, or the client let too much wait).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        let (accepted, parked) = state.withLock { state -> (Bool, ConnectionHandle?) in
            guard !state.closed, !state.finished else { return (false, nil) }
            if state.waiting + bytes.count > bufferLimit {
                state.finished = true
            } else {
                state.pending.append(contentsOf: bytes)
            }
            defer { state.parked = nil }
            return (!state.finished, state.parked)
        }
        parked?.resume()
        return accepted
    }

    /// Ends the stream once what was sent has gone out.
    public func finish() {
        let parked = state.withLock { state -> ConnectionHandle? in
            state.finished = true
            defer { state.parked = nil }
            return state.parked
        }
        parked?.resume()
    }

    /// Runs `handler` once the stream is over, on whichever thread ends it (at once if it is).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if !state.closed { state.closeHandlers.append(handler) }
            return state.closed
        }
        if runNow { handler() }
    }

    /// Whether the stream is over: the client went away, or it was finished and sent.
    public var isClosed: Bool { state.withLock { $0.closed } }

    // MARK: For the server

    /// What libmicrohttpd's content reader answers: up to `buffer.count` bytes copied, or, when
    /// nothing waits, the connection suspended and 0, or the end of the stream
    /// (`MHD_CONTENT_READER_END_OF_STREAM`). Runs on the connection's daemon thread.
    func read(into buffer: UnsafeMutableRawBufferPointer, connection: ConnectionHandle) -> Int {
        state.withLock { state in
            if state.waiting > 0 {
                let count = min(state.waiting, buffer.count)
                state.pending.withUnsafeBytes { bytes in
                    buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + state.handed, byteCount: count)
                }
                state.handed += count
                if state.handed == state.pending.count {
                    state.pending.removeAll(keepingCapacity: state.pending.capacity <= 16 << 10)
                    state.handed = 0
                }
                return count
            }
            if state.finished || state.closed { return -1 }
            // Under the lock, so that a `send` waits until the connection is suspended before it
            // resumes it.
            state.parked = connection
            MHD_suspend_connection(connection.pointer)
            return 0
        }
    }

    /// The response is done with (sent, or its connection closed): runs the close handlers.
    func closed() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            state.parked = nil
            state.pending = []
            defer { state.closeHandlers = [] }
            return state.closeHandlers
        }
        handlers.forEach { $0() }
    }
}
