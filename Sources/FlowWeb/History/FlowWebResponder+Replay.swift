import FlowCore

extension FlowWebResponder {
    /// Session `id`'s tree as stored, and as its history replays (from the start, or from the
    /// nearest snapshot); `nil` when the session is not stored. For checks that a history
    /// rebuilds its state (FlowExplorer's).
    ///
    /// - Throws: ``WebError`` when the store fails or the history cannot be read or replayed.
    package func storedAndReplayed(_ id: String) async throws(WebError) -> (
        stored: NavigationTree, replayed: NavigationTree
    )? {
        guard let session = try await sessions.load(id), session.isStored else { return nil }
        let past = try await sessions.past(session, at: session.record.lastSeq)
        return (session.tree, past.tree)
    }
}
