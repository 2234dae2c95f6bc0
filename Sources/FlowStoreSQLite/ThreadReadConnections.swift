import FlowStore
import GRDB
import Synchronization
import ThreadLocal

/// A read-only connection to an SQLite database for each thread that reads without suspending,
/// opened on the thread's first read and closed with this object.
///
/// Why not GRDB's reader pool: a synchronous read from the pool waits for a free reader, and
/// readers taken by async reads come back only once a cooperative thread runs their task again.
/// When the threads that would run those tasks are themselves waiting for a reader, nothing ever
/// comes back (the hang of issue 20). A thread's own connection is never used by anyone else,
/// so its reads wait for the disk only: in WAL mode a reader does not wait for the writer.
final class ThreadReadConnections: @unchecked Sendable {
    // @unchecked: each thread's slot holds a connection only that thread uses; `opened` is
    // behind its lock.
    private let path: String
    private let configuration: Configuration
    private let slot: ThreadSlot
    /// Every connection opened, to close them with this object (a thread that ended leaves its
    /// connection here until then).
    private let opened = Mutex<[DatabaseQueue]>([])

    /// Connections to the database at `path`, opened with `configuration` made read-only.
    init(path: String, configuration: Configuration) throws(StoreError) {
        self.path = path
        var configuration = configuration
        configuration.readonly = true
        configuration.label = "FlowStoreSQLite.thread-reader"
        self.configuration = configuration
        guard let slot = ThreadSlot() else { throw .unavailable("no thread-specific slot is left for SQLite readers") }
        self.slot = slot
    }

    deinit {
        for connection in opened.withLock({ $0 }) { try? connection.close() }
        slot.delete()
    }

    /// Runs `body` with the calling thread's connection, outside any transaction: one SELECT is
    /// consistent on its own.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try connection().unsafeRead(body)
    }

    private func connection() throws -> DatabaseQueue {
        if let held = slot.pointer {
            return Unmanaged<DatabaseQueue>.fromOpaque(held).takeUnretainedValue()
        }
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        opened.withLock { $0.append(connection) }
        // Unretained: `opened` keeps the connection as long as this object lives.
        slot.hold(Unmanaged.passUnretained(connection).toOpaque())
        return connection
    }
}
