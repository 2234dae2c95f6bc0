/// A store that reads a session on the calling thread, without suspending: memory, or a local
/// SQLite file. FlowWeb then answers a request that only shows a session's current page right on
/// the server's thread, with no task, thread hop or suspended connection.
///
/// Conform only when a read never waits on the network or on writers: the caller is one of the
/// HTTP server's few threads.
public protocol ImmediateSessionLoading: SessionStore {
    /// The session `id`, or `nil` when there is none: ``SessionStore/load(_:)`` on this thread.
    func loadImmediately(_ id: String) throws(StoreError) -> SessionRecord?
}
