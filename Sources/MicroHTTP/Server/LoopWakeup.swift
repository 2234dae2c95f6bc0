import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes a ``DaemonLoop`` from its wait: after a connection is resumed, and to stop.
///
/// libmicrohttpd wakes only its own threads (its "ITC"); a daemon run by `MHD_run` is woken by
/// whoever runs it. A pipe that the loop waits on along with the daemon's events, and a flag, so
/// that any number of signals before the loop wakes write one byte.
final class LoopWakeup: Sendable {
    /// The end the loop waits on.
    let descriptor: Int32
    /// The end signals write to (internal for tests).
    let writeEnd: Int32
    private let pending = Atomic<Bool>(false)

    /// A wakeup, or `nil` when the system refuses a pipe.
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)  // not inherited by processes the app starts
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Makes the loop's current or next wait return. Safe from any thread.
    func signal() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Whether a signal came since the last ``drain()``.
    var isPending: Bool { pending.load(ordering: .acquiring) }

    /// Empties the pipe; called by the loop after its wait returned for it, before it handles
    /// what the signals announced (so a signal that comes meanwhile writes again).
    ///
    /// The flag is cleared only when a byte was read: a signal between its flag and its write
    /// finds the pipe still empty, and clearing the flag then would leave its byte in the pipe
    /// with the flag down. The loop, which drains only while the flag is up, would never read
    /// that byte, and libmicrohttpd's wait, which sees the pipe readable, would return at once on
    /// every turn: a thread spinning until the next signal.
    func drain() {
        var bytes: (UInt64, UInt64) = (0, 0)
        var drained = false
        while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 { drained = true }
        guard drained else { return }
        // An exchange, not a store: it reads (and acquires) the last signal's `true`, so what
        // that signal announced is visible to the loop once it goes on.
        _ = pending.exchange(false, ordering: .acquiringAndReleasing)
    }
}
