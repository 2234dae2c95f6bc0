import FlowStore

/// The web layer's calls to the session store: a failure becomes `503` (the store is down, try
/// again), and every outcome tells the log of the store's health (see ``StoreHealthLog``).
struct StoreCalls: Sendable {
    let store: any SessionStore
    let health: StoreHealthLog

    /// `body`'s answer from the store, or its failure as `503`.
    func run<T>(_ body: () async throws(StoreError) -> T) async throws(WebError) -> T {
        do {
            let answer = try await body()
            health.succeeded()
            return answer
        } catch {
            throw failure(error)
        }
    }

    /// `error` logged, as the `503` to answer.
    func failure(_ error: StoreError) -> WebError {
        health.failed(error.description)
        return .unavailable(error.description)
    }
}
