import Synchronization

/// One lock per session, whose waiters queue with their changes: the changes of a session are
/// applied one at a time, in arrival order; different sessions run in parallel.
///
/// The holder that releases a lock hands it, with every change queued behind it, to the first
/// of them: that waiter applies its own change and the others after it, in order, and tells each
/// of the others it was served (``Queued/served()``). Changes that wait together are so applied
/// together, by one task — and committed together (see ``SessionService/update(_:_:)``) — rather
/// than each resuming for the lock and again for its own commit.
///
/// A mutex guards the table rather than an actor: taking a free lock and releasing one then cost
/// no hop to another executor and back.
final class SessionLocks<Change: Sendable>: Sendable {
    /// What a waiter's turn came to.
    enum Turn: Sendable {
        /// The lock is the waiter's, with the changes queued behind it: apply them after its own,
        /// in this order, then serve each (``Queued/served()``) and ``release(_:)`` the lock.
        case holds([Queued])
        /// The lock's holder applied the waiter's change: its outcome is where the change keeps it.
        case served
    }

    /// A change waiting for its session's lock.
    final class Queued: Sendable {
        /// The change.
        let change: Change
        fileprivate let continuation: CheckedContinuation<Turn, Never>

        fileprivate init(change: Change, continuation: CheckedContinuation<Turn, Never>) {
            self.change = change
            self.continuation = continuation
        }

        /// Tells the waiter its change was applied, once the change holds its outcome.
        func served() { continuation.resume(returning: .served) }
    }

    /// Locked sessions and who waits for each (``Queued`` objects), first come first served.
    /// Objects rather than `Queued` values: the table's type is then one the compiler knows, and
    /// taking a free lock, what nearly every change does, looks up no type of the app's changes
    /// at run time.
    private let waiting = Mutex<[String: [AnyObject]]>([:])

    /// A table of free locks.
    init() {}

    /// Takes session `id`'s lock if it is free (nothing queued behind it yet).
    func take(_ id: String) -> Bool {
        waiting.withLock { Self.take(id, in: &$0) }
    }

    /// Waits for session `id`'s lock with `change`: the lock (with the changes queued behind
    /// `change`, when it was handed over), or `.served` when a holder applied `change` meanwhile.
    /// A free lock is taken without suspending.
    func acquire(_ id: String, for change: Change) async -> Turn {
        if take(id) { return .holds([]) }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let taken = waiting.withLock { table in
                if Self.take(id, in: &table) { return true }
                table[id]!.append(Queued(change: change, continuation: continuation))
                return false
            }
            if taken { continuation.resume(returning: .holds([])) }
        }
    }

    /// Hands `id`'s lock, with every change queued behind the first waiter, to that waiter; or
    /// frees it.
    func release(_ id: String) {
        let queue = waiting.withLock { table -> [AnyObject] in
            let queue = table[id] ?? []
            table[id] = queue.isEmpty ? nil : []
            return queue
        }
        guard let next = queue.first else { return }
        unsafeDowncast(next, to: Queued.self).continuation.resume(
            returning: .holds(queue.dropFirst().map { unsafeDowncast($0, to: Queued.self) }))
    }

    /// How many wait for session `id`'s lock; `nil` when it is free.
    func waiterCount(_ id: String) -> Int? {
        waiting.withLock { $0[id]?.count }
    }

    /// Takes `id`'s lock when it is free.
    private static func take(_ id: String, in table: inout [String: [AnyObject]]) -> Bool {
        guard table[id] == nil else { return false }
        table[id] = []
        return true
    }
}
