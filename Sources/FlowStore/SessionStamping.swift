/// A shared store that tells a session's version and times without its contents, at the cost
/// of a small share of a round trip: FlowWeb then answers a reload of a session's current page
/// from what it keeps of that version (its decoded tree, each thread's page chrome), as it does
/// on the server's thread for ``ImmediateSessionLoading`` stores, after this one wait.
///
/// The stamp must be read after the call began: a page must show every commit that finished
/// before it was asked for, on any instance.
public protocol SessionStamping: SessionStore {
    /// The version and times of session `id`, without its contents, or `nil` when there is none.
    func stamp(_ id: String) async throws(StoreError) -> SessionStamp?

    /// The stamp of session `id`, given to `then` once read, from any thread; as
    /// ``stamp(_:)`` tells it. The default asks ``stamp(_:)`` in a task.
    func stamp(_ id: String, then: @escaping @Sendable (Result<SessionStamp?, StoreError>) -> Void)
}

extension SessionStamping {
    public func stamp(_ id: String, then: @escaping @Sendable (Result<SessionStamp?, StoreError>) -> Void) {
        Task {
            do throws(StoreError) { then(.success(try await stamp(id))) } catch { then(.failure(error)) }
        }
    }
}

/// A session's version and times: what changes when anything about it changes (a commit grows
/// the version; a renewal moves the times).
public struct SessionStamp: Sendable, Hashable {
    /// The record's ``SessionRecord/version``.
    public var version: Int
    /// The record's ``SessionRecord/lastUsedAt``.
    public var lastUsedAt: Int64
    /// The record's ``SessionRecord/expiresAt``.
    public var expiresAt: Int64

    /// A stamp.
    public init(version: Int, lastUsedAt: Int64, expiresAt: Int64) {
        self.version = version
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }

    /// The stamp of `record`.
    public init(_ record: SessionRecord) {
        self.init(version: record.version, lastUsedAt: record.lastUsedAt, expiresAt: record.expiresAt)
    }
}
