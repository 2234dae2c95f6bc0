/// One lock per session: the steps of a session run one at a time, in arrival order; different
/// sessions run in parallel.
actor SessionLocks {
    /// Locked sessions and who waits for each, first come first served.
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` while holding session `id`'s lock.
    func withLock<R: Sendable>(_ id: String, _ body: @Sendable () async throws -> R) async throws -> R {
        await acquire(id)
        do {
            let result = try await body()
            release(id)
            return result
        } catch {
            release(id)
            throw error
        }
    }

    private func acquire(_ id: String) async {
        if waiting[id] == nil {
            waiting[id] = []
            return
        }
        await withCheckedContinuation { waiting[id]!.append($0) }
    }

    private func release(_ id: String) {
        guard var queue = waiting[id] else { return }
        if queue.isEmpty {
            waiting[id] = nil
        } else {
            let next = queue.removeFirst()
            waiting[id] = queue
            next.resume()
        }
    }
}
