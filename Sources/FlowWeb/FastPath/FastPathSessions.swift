import FlowStore

/// What the fast page path shares with the async path (``SessionService``), in one value that
/// does not depend on the app's step type: the store, the cache of decoded trees and the decoder,
/// the ids, the initial state, the session lifetime, the clock, and whether a session is locked.
struct FastPathSessions: Sendable {
    let store: any SessionStore
    /// The decoded trees the async path shares (a page after a step is usually shown once).
    let decoded: DecodedSessionCache
    let decoder: StoredSessionDecoder
    let ids: SessionIDs
    /// Session `id`, minted at the time given, at the app's initial state (`nil` until that is
    /// computed): what a session not stored yet shows.
    let initial: @Sendable (_ id: String, _ mintedAt: Int64) -> LoadedSession?
    let lifetime: SessionLifetime
    let clock: @Sendable () -> Int64
    /// Whether the async path holds session `id`'s lock: a session locked is being changed on
    /// this instance.
    let isLocked: @Sendable (_ id: String) -> Bool
}

extension SessionService {
    /// What the fast page path shares with this service.
    var fastPathSessions: FastPathSessions {
        FastPathSessions(
            store: store, decoded: decoded, decoder: decoder, ids: ids, initial: readyInitialSession,
            lifetime: lifetime, clock: clock, isLocked: { [locks] id in locks.waiterCount(id) != nil })
    }
}
