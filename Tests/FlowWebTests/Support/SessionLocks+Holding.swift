@testable import FlowWeb

extension SessionLocks {
    /// Holds session `id`'s lock (taken by a change of `known` that changes nothing) while `body`
    /// runs, then hands it on to the changes queued meanwhile.
    func holding<Step, R>(
        _ known: LoadedSession, _ body: () async throws -> R
    ) async rethrows -> R where Change == QueuedChange<Step> {
        let idle = QueuedChange<Step>(
            known: known, apply: { _ in .unchanged }, commitAlone: { nil }, finish: { _, _ in }, fail: { _ in })
        guard case .holds(let queued) = await acquire(known.record.id, for: idle) else {
            preconditionFailure("a change that waits for a lock is applied by its holder")
        }
        precondition(queued.isEmpty, "changes that queued behind the idle change would not be applied")
        defer { release(known.record.id) }
        return try await body()
    }
}
