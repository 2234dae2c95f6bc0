import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches SIGINT and SIGTERM on a dispatch queue (their default action is disabled), so the
/// server can stop gracefully instead of dying mid-request.
///
/// `@unchecked Sendable`: the sources are set up once in `watch` and never mutated; dispatch
/// sources are thread-safe objects.
final class TerminationSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    private init(sources: [any DispatchSourceSignal]) { self.sources = sources }

    /// Calls `action` with the signal number each time SIGINT or SIGTERM arrives.
    static func watch(_ action: @escaping @Sendable (Int32) -> Void) -> TerminationSignals {
        TerminationSignals(sources: [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { action(number) }
            source.resume()
            return source
        })
    }

    /// Stops watching.
    func cancel() { sources.forEach { $0.cancel() } }
}
