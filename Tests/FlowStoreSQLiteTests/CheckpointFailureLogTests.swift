import Logging
import Synchronization
import Testing

@testable import FlowStoreSQLite

@Suite("Checkpoint failures")
struct CheckpointFailureLogTests {
    @Test("failures shorter than the patience say nothing; longer ones one warning; working again, one notice")
    func warnsOncePerStreak() {
        let records = LogRecords()
        var log = CheckpointFailureLog(
            patience: .seconds(10), logger: Logger(label: "test") { _ in RecordingLogHandler(records: records) })
        let start = ContinuousClock.now
        log.failed(Busy(), at: start)
        log.failed(Busy(), at: start + .seconds(9))
        log.succeeded(at: start + .seconds(9.5))  // a failure that passed
        #expect(records.entries.withLock { $0.isEmpty })

        log.failed(Busy(), at: start + .seconds(12))
        log.failed(Busy(), at: start + .seconds(21))  // 9 s into this streak, 21 s since the first failure
        #expect(records.entries.withLock { $0.isEmpty })
        log.failed(Busy(), at: start + .seconds(22))
        log.failed(Busy(), at: start + .seconds(40))
        log.succeeded(at: start + .seconds(41))
        log.succeeded(at: start + .seconds(42))

        let entries = records.entries.withLock { $0 }
        #expect(entries.map(\.level) == [.warning, .notice])
        #expect(entries.first?.message.contains("10.0 seconds") == true)
        #expect(entries.first?.metadata["error"]?.description == "database is locked")
        #expect(entries.last?.message.contains("29.0 seconds") == true)
    }
}

private struct Busy: Error, CustomStringConvertible {
    var description: String { "database is locked" }
}

/// Log entries kept in memory.
private final class LogRecords: Sendable {
    let entries = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
}

/// A log handler that keeps every entry in ``LogRecords``.
private struct RecordingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        records.entries.withLock { $0.append((level, message.description, metadata ?? [:])) }
    }
}
