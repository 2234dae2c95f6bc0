import FlowStore

extension SessionService {
    /// Changes that other instances commit to the sessions whose changes this one streams: every
    /// ``remoteChangeInterval`` their stored versions are read in one query, and each session
    /// found newer is loaded and its streams told. Polling rather than PostgreSQL's
    /// `LISTEN`/`NOTIFY`: one bounded query per interval however many sessions change, no
    /// connection held open to listen on, nothing added to every commit, and any shared store
    /// can answer it.
    func publishRemoteChanges() async {
        let watched = events.watched
        guard !watched.isEmpty, let stored = try? await store.versions(of: Array(watched.keys)) else { return }
        for (id, version) in stored where version > watched[id] ?? 0 {
            guard let session = try? await load(id), let top = session.tree.top else { continue }
            events.publish(id, version: session.record.version, top: PageReference(node: top.id.rawValue, url: top.url))
        }
    }
}
