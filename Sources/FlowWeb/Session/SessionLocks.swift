import Synchronization

/// One lock per session: the steps of a session run one at a time, in arrival order; different
/// sessions run in parallel.
///
/// A mutex guards the table rather than an actor: taking a free lock and releasing one then cost
/// no hop to another executor and back (four per step with an actor).
final class SessionLocks: Sendable {
    /// Locked sessions and who waits for each, first come first served.
    private let waiting = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Runs `body` while holding session `id`'s lock.
    func withLock<R: Sendable>(_ id: String, _ body: @Sendable () async throws -> R) async rethrows -> R {
        await acquire(id)
        defer { release(id) }
        return try await body()
    }

    /// How many wait for session `id`'s lock; `nil` when it is free.
    func waiterCount(_ id: String) -> Int? {
        waiting.withLock { $0[id]?.count }
    }

    private func acquire(_ id: String) async {
        if waiting.withLock({ Self.take(id, in: &$0) }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let taken = waiting.withLock { table in
                if Self.take(id, in: &table) { return true }
                table[id]!.append(continuation)
                return false
            }
            if taken { continuation.resume() }
        }
    }

    /// Takes `id`'s lock when it is free.
    private static func take(_ id: String, in table: inout [String: [CheckedContinuation<Void, Never>]]) -> Bool {
        guard table[id] == nil else { return false }
        table[id] = []
        return true
    }

    /// Hands `id`'s lock to its first waiter, or frees it.
    private func release(_ id: String) {
        let next = waiting.withLock { table -> CheckedContinuation<Void, Never>? in
            if table[id]?.isEmpty ?? true {
                table[id] = nil
                return nil
            }
            return table[id]!.removeFirst()
        }
        next?.resume()
    }
}
