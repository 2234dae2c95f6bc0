import FlowStore

/// The fast page path: a reload of a session's current page, answered from what this instance
/// keeps of the session's version, with no memory written that another core writes. On a store
/// that reads without waiting, on the server's thread that read the request, with no task and
/// no suspended connection; on a shared store that tells stamps (``SessionStamping``), after
/// that one wait, in the callback that brings the stamp, again with no task. Everything else (a new session, a visit, a step, a renewal due, a version
/// this instance has not decoded on a shared store, any failure) answers `nil` here and takes
/// ``SessionService``'s async path.
///
/// It follows the rules of FlowWeb.docc/Performance.md: the store reads without waiting
/// (``ImmediateSessionLoading``) or tells a stamp (``SessionStamping``, by a callback); a version
/// names one content and times come from each stamp; each thread renders from its own memory
/// (``ShownSession``, kept per thread by ``SessionVersionCache``).
final class FastPagePath: Sendable {
    /// The store, when it reads without waiting.
    private let immediate: (any ImmediateSessionLoading)?
    /// The store, when it tells stamps (and does not read without waiting).
    private let stamping: (any SessionStamping)?
    /// What each thread keeps of the session versions it shows.
    private let shown = SessionVersionCache<ShownSession>()
    /// The chrome of the app's initial state, made once per thread, for first visits.
    private let initialChrome = PerThread { InitialChrome() }
    /// What it shares with the async path.
    private let sessions: FastPathSessions

    /// The fast path beside the async path that `sessions` describes; `nil` when its store
    /// neither reads without waiting nor tells stamps.
    init?(_ sessions: FastPathSessions) {
        immediate = sessions.store as? any ImmediateSessionLoading
        stamping = immediate == nil ? sessions.store as? any SessionStamping : nil
        guard immediate != nil || stamping != nil else { return nil }
        self.sessions = sessions
    }

    /// Session `id` as this thread shows it, with its page chrome (made by `chrome` once per
    /// version on each thread), when the store reads without waiting and the session is live,
    /// needs no renewal and shows the page at `path`: stored, or not stored yet and so at the
    /// app's initial state; `nil` in every other case, a store failure included (the async path
    /// then answers it). A stored session's id is not checked again: only checked ids are ever
    /// stored.
    ///
    /// The first time a thread shows a stored version it renders the shared decoded tree; once
    /// it has shown it often enough (twice for a small tree) it decodes a tree of its own.
    func show(_ id: String, at path: String, chrome: (LoadedSession) throws(WebError) -> PageChrome) -> ShownSession? {
        guard let immediate, SessionIDs.isWellFormed(id) else { return nil }
        let found: SessionStamp?
        do { found = try immediate.stampImmediately(id) } catch { return nil }
        return show(id, at: path, stamped: found, read: { try? immediate.loadImmediately(id) }, chrome: chrome)
    }

    /// Session `id` as ``show(_:at:chrome:)`` shows it, on a store that tells stamps: once the
    /// store's stamp says this instance holds the session's current version decoded (a version
    /// it has not is the async path's to read). The store is not asked when the copy this
    /// instance holds does not show `path` on top (a visit to another page, a session it does
    /// not hold): the async path, which changes the session or reads it anyway, answers those.
    func showAfterStamp(
        _ id: String, at path: String, chrome: @escaping @Sendable (LoadedSession) throws(WebError) -> PageChrome
    ) async -> ShownSession? {
        await withCheckedContinuation { continuation in
            let asked = showLater(id, at: path, chrome: chrome) { continuation.resume(returning: $0) }
            if !asked { continuation.resume(returning: nil) }
        }
    }

    /// Session `id` as ``showAfterStamp(_:at:chrome:)`` shows it, given to `then` (on any thread)
    /// once the store's stamp arrives, with no task of its own: `nil` when it shows nothing
    /// there. `false`, and `then` never called, when the store is not asked.
    func showLater(
        _ id: String, at path: String, chrome: @escaping @Sendable (LoadedSession) throws(WebError) -> PageChrome,
        then: @escaping @Sendable (ShownSession?) -> Void
    ) -> Bool {
        guard let stamping, SessionIDs.isWellFormed(id), sessions.decoded.latest(id)?.tree.top?.url == path else {
            return false
        }
        stamping.stamp(id) { found in
            guard case .success(let stamp) = found else { return then(nil) }
            then(self.show(id, at: path, stamped: stamp, read: { nil }, chrome: chrome))
        }
        return true
    }

    /// Session `id` at `stamp` (`nil`: not stored), from what this instance keeps of that
    /// version, or from the record `read` reads now when it keeps nothing.
    private func show(
        _ id: String, at path: String, stamped found: SessionStamp?, read: () -> SessionRecord?,
        chrome: (LoadedSession) throws(WebError) -> PageChrome
    ) -> ShownSession? {
        let now = sessions.clock()
        guard let stamp = found else {
            return showInitial(id, now: now, chrome: chrome).flatMap { $0.chrome.top.url == path ? $0 : nil }
        }
        guard stamp.version > 0, stamp.expiresAt > now,
            !sessions.lifetime.isDueForRenewal(lastUsedAt: stamp.lastUsedAt, now: now)
        else { return nil }
        guard
            let kept = try? shown.value(
                id, version: stamp.version,
                make: { () throws(WebError) -> ShownSession in
                    var session: LoadedSession
                    let held = sessions.decoded.latest(id)
                    if let held, SessionStamp(held.record) == stamp {
                        // This instance committed or read the stamp's version: nothing to read.
                        session = held
                        session.record = SessionRecord(ownCopyOf: held.record)
                    } else if let held, held.record.version < stamp.version, sessions.isLocked(id) {
                        // Newer than this instance's copy while this instance changes the
                        // session: most often its own commit, stored and about to be cached.
                        // The async path decodes the version only if it still must.
                        throw .unavailable("being changed here")
                    } else {
                        // Changed since the stamp: nothing is kept under the stamp's version.
                        guard let read = read(), SessionStamp(read) == stamp else {
                            throw .unavailable("changed while read")
                        }
                        do throws(UnreadableSession) {
                            session = try sessions.decoded.session(
                                from: SessionRecord(ownCopyOf: read), decoder: sessions.decoder)
                        } catch {
                            throw error.webError  // the async path restarts it
                        }
                    }
                    // A visit to another page (Back after a step, usually) moves the tree: the
                    // async path's, and nothing is made for it here.
                    guard session.tree.top?.url == path else { throw .unavailable("another page") }
                    return ShownSession(session, chrome: try chrome(session))
                })
        else { return nil }
        guard kept.chrome.top.url == path else { return nil }
        if kept.shownAgainWantsOwnTree(), let own = try? sessions.decoder.decode(kept.session.record) {
            kept.takeOwnTree(own)
        }
        kept.update(stamp)
        return kept
    }

    /// Session `id`, not stored, at the app's initial state (version 1: stored versions start at
    /// 2), while its signed id has not expired. A thread checks an id's signature once: it keeps
    /// the session only once checked.
    private func showInitial(_ id: String, now: Int64, chrome: (LoadedSession) throws(WebError) -> PageChrome)
        -> ShownSession?
    {
        if let kept = shown.kept(id, version: 1) { return kept.session.record.expiresAt > now ? kept : nil }
        guard case .signed(let mintedAt) = sessions.ids.check(id), mintedAt + sessions.lifetime.ttl > now,
            let initial = sessions.initial(id, mintedAt)
        else {
            return nil
        }
        return try? shown.value(id, version: 1) { () throws(WebError) -> ShownSession in
            ShownSession(initial, chrome: try chrome(initial))
        }
    }

    /// A first visit (no cookie) to `path` when it is `/` or the initial state's top page: a new
    /// session, minted now and not stored, with its chrome (made once per thread); `nil` for any
    /// other path, or until the initial state is computed.
    func firstVisit(to path: String, chrome: (LoadedSession) throws(WebError) -> PageChrome) -> ShownSession? {
        let kept = initialChrome.current
        if let made = kept.chrome, path != "/", path != made.top.url { return nil }
        let (id, mintedAt) = sessions.ids.mint(now: sessions.clock())
        guard let session = sessions.initial(id, mintedAt) else { return nil }
        if kept.chrome == nil { kept.chrome = try? chrome(session) }
        guard let made = kept.chrome, path == "/" || path == made.top.url else { return nil }
        return ShownSession(session, chrome: made)
    }
}

/// A thread's chrome of the app's initial state (see ``FastPagePath/firstVisit(to:chrome:)``).
private final class InitialChrome {
    var chrome: PageChrome?
}
