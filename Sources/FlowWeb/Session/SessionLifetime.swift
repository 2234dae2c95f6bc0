/// How long an idle session lives, and when using one renews it.
struct SessionLifetime: Sendable {
    /// Milliseconds a session lives after its last renewal.
    let ttl: Int64

    /// Sessions that live `ttlSeconds` after their last renewal.
    init(ttlSeconds: Int) { ttl = Int64(ttlSeconds) * 1000 }

    /// Whether a use at `now` renews a session last renewed at `lastUsedAt`: once a tenth of the
    /// lifetime has passed, at most a minute, so reading pages costs a store write at most once a
    /// minute per session, and steps rewrite the store's expiry index no more often.
    func isDueForRenewal(lastUsedAt: Int64, now: Int64) -> Bool {
        now - lastUsedAt >= min(ttl / 10, 60_000)
    }
}
