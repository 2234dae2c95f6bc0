import Synchronization

/// How fast one client address may have new sessions stored: a token bucket per address, holding
/// up to `burst` tokens and refilled at `perMinute`. Sessions cost nothing until they change, so
/// this limits what a client can make the store keep, not what it can read.
final class SessionCreationLimit: Sendable {
    private struct Bucket {
        var tokens: Double
        /// Milliseconds since 1970 when `tokens` was counted.
        var at: Int64
    }

    /// Sessions a client may have stored per minute, on average.
    let perMinute: Int
    /// Sessions a client may have stored at once after a quiet while.
    let burst: Int
    private struct State {
        var buckets: [String: Bucket] = [:]
        var lastSweep: Int64 = 0
    }

    private let state = Mutex(State())
    /// Past this many addresses, buckets that have filled up again are dropped (they are what a
    /// new bucket would be), at most once a second.
    private let sweepThreshold: Int

    /// A limit of `perMinute` new sessions per client address, with bursts of `burst`.
    init(perMinute: Int, burst: Int, sweepThreshold: Int = 10_000) {
        precondition(perMinute > 0 && burst > 0, "a limit needs a positive rate and burst")
        self.perMinute = perMinute
        self.burst = burst
        self.sweepThreshold = sweepThreshold
    }

    /// Takes a token for `client` at `now` (milliseconds since 1970): `nil` when the client may
    /// store a new session, else the whole seconds until it may.
    func take(_ client: String, now: Int64) -> Int? {
        state.withLock { state in
            if state.buckets.count >= sweepThreshold, now - state.lastSweep >= 1000 {
                state.buckets = state.buckets.filter { refilled($0.value, now: now).tokens < Double(burst) }
                state.lastSweep = now
            }
            var bucket = refilled(state.buckets[client] ?? Bucket(tokens: Double(burst), at: now), now: now)
            defer { state.buckets[client] = bucket }
            guard bucket.tokens >= 1 else {
                let missing = 1 - bucket.tokens
                return max(1, Int((missing * 60 / Double(perMinute)).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    private func refilled(_ bucket: Bucket, now: Int64) -> Bucket {
        let elapsed = Double(max(0, now - bucket.at)) / 60_000
        return Bucket(tokens: min(Double(burst), bucket.tokens + elapsed * Double(perMinute)), at: now)
    }
}
