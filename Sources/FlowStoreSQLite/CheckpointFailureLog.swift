import Logging

/// What ``WALCheckpointer`` says about failing checkpoints: nothing for a failure that passes
/// (two checkpoints that meet are refused as busy, and the next one works), one warning once
/// they have failed for `patience` in a row, as the write-ahead log then grows until one works,
/// and one notice when they work again.
struct CheckpointFailureLog {
    /// How long checkpoints fail before the warning.
    let patience: Duration
    let logger: Logger
    private var failingSince: ContinuousClock.Instant?
    private var warned = false

    init(patience: Duration, logger: Logger) {
        self.patience = patience
        self.logger = logger
    }

    /// Notes a checkpoint that failed with `error` at `now`.
    mutating func failed(_ error: any Error, at now: ContinuousClock.Instant) {
        let since = failingSince ?? now
        failingSince = since
        guard !warned, now - since >= patience else { return }
        warned = true
        logger.warning(
            "SQLite checkpoints have failed for \(now - since): the write-ahead log grows until one succeeds",
            metadata: ["error": "\(error)"])
    }

    /// Notes a checkpoint that worked at `now`.
    mutating func succeeded(at now: ContinuousClock.Instant) {
        defer {
            failingSince = nil
            warned = false
        }
        guard warned, let since = failingSince else { return }
        logger.notice("SQLite checkpoints work again after \(now - since) of failures")
    }
}
