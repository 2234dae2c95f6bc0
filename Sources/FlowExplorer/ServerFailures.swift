import Logging
import Synchronization

/// What the explored app's server logged about the requests it failed (FlowWeb logs each `500`
/// as "request failed", with what failed and the reference its answer names instead), kept by
/// reference until a finding asks: a server error's finding then says what failed, not the first
/// bytes of an error page.
final class ServerFailures: Sendable {
    private let details = Mutex<[String: String]>([:])

    /// No failures yet.
    init() {}

    /// A log handler that keeps the failures it is given and passes every entry on to `next`.
    func recording(to next: any LogHandler) -> any LogHandler {
        FailureRecordingLogHandler(failures: self, next: next)
    }

    /// What failed in the request answered with `body` (the reference it names, and the detail
    /// logged under it), forgotten once told; `nil` when nothing logged has a reference in `body`.
    func take(answeredWith body: [UInt8]) -> (reference: String, detail: String)? {
        let text = String(decoding: body, as: UTF8.self)
        return details.withLock { details in
            guard let reference = details.keys.first(where: text.contains) else { return nil }
            return details.removeValue(forKey: reference).map { (reference, $0) }
        }
    }

    fileprivate func record(_ event: LogEvent) {
        guard event.message.description == "request failed", let metadata = event.metadata,
            case .string(let reference)? = metadata["reference"], case .string(let detail)? = metadata["detail"]
        else { return }
        details.withLock { $0[reference] = detail }
    }
}

/// Passes every entry on to the handler the logging system made, after giving it to
/// ``ServerFailures``.
private struct FailureRecordingLogHandler: LogHandler {
    let failures: ServerFailures
    var next: any LogHandler

    var logLevel: Logger.Level {
        get { next.logLevel }
        set { next.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { next.metadata }
        set { next.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { next[metadataKey: key] }
        set { next[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        failures.record(event)
        next.log(event: event)
    }
}
