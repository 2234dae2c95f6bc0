import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The last resort of a stop: once armed, ends the process with status 1 after `limit`, from a
/// thread of its own, whatever the rest of the process is doing. The graceful stop needs Swift's
/// cooperative threads; if something ever blocked them all, only this would still run.
enum StopDeadline {
    private static let armed = Atomic<Bool>(false)

    /// Starts the countdown (the first call only).
    static func arm(after limit: Duration, name: String) {
        guard !armed.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread {
            Thread.sleep(
                forTimeInterval: Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18)
            let line = Array("\(name): did not stop within \(limit) of the signal; exiting\n".utf8)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            _exit(1)
        }
        thread.name = "\(name)-stop-deadline"
        thread.start()
    }
}
