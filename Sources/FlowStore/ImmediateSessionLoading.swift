/// A store that reads a session on the calling thread, without suspending: memory, or a local
/// SQLite file. FlowWeb then answers a request that only shows a session's current page right on
/// the server's thread, with no task, thread hop or suspended connection.
///
/// Conform only when a read never waits on the network, on writers, or on anything a task holds
/// (a pool's connection, a lock held across a suspension): the caller is one of the HTTP
/// server's few threads, and while it waits nobody else is served on it. Async code calls
/// ``SessionStore/load(_:)`` instead, never these.
public protocol ImmediateSessionLoading: SessionStore {
    /// The session `id`, or `nil` when there is none: `load(_:)` on this thread.
    func loadImmediately(_ id: String) throws(StoreError) -> SessionRecord?

    /// The version and times of session `id`, without its contents, or `nil` when there is none:
    /// what tells whether a copy read earlier is still current and live. By default the
    /// `loadImmediately(_:)` record's.
    func stampImmediately(_ id: String) throws(StoreError) -> SessionStamp?
}

extension ImmediateSessionLoading {
    public func stampImmediately(_ id: String) throws(StoreError) -> SessionStamp? {
        try loadImmediately(id).map(SessionStamp.init)
    }
}
