import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pipe the signal handler writes the signal number to (the self-pipe trick): `write` is
/// async-signal-safe, and a thread of our own reads the pipe and acts outside the handler.
/// Created before any handler is installed; a `let`, so reading it is safe from any thread.
private let signalPipe: (read: Int32, write: Int32) = {
    var descriptors: [Int32] = [-1, -1]
    _ = pipe(&descriptors)
    return (descriptors[0], descriptors[1])
}()

/// Watches SIGINT and SIGTERM so the server can stop gracefully instead of dying mid-request.
///
/// The handlers are installed synchronously by ``watch(_:)``: a signal that arrives right after
/// it returns is never lost (a dispatch signal source arms itself asynchronously and can miss
/// one sent at once).
enum TerminationSignals {
    /// Calls `action` with the signal number, on a thread of its own, each time SIGINT or SIGTERM
    /// arrives.
    static func watch(_ action: @escaping @Sendable (Int32) -> Void) {
        let pipe = signalPipe
        let reader = Thread {
            var byte: UInt8 = 0
            while read(pipe.read, &byte, 1) == 1 { action(Int32(byte)) }
        }
        reader.name = "flowserver-signals"
        reader.start()
        for number in [SIGINT, SIGTERM] {
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(signalPipe.write, &byte, 1)
            }
        }
    }
}
