import Synchronization

/// Request observations (route, status, duration) gathered per thread and handed over in
/// batches: a registry's counter and histogram are shared by every thread, and each request
/// writing them (an atomic add, a lock) passed their memory from core to core on every request.
/// A thread's batch is written by that thread alone until it is full, or until ``drain(_:)``
/// takes every batch (before the metrics are read).
final class RequestBatches: Sendable {
    /// One observation.
    struct Observation: Sendable {
        var route: String
        var status: Int
        var duration: Duration
    }

    /// One thread's observations not yet handed over.
    private final class Batch: Sendable {
        let observations = Mutex<[Observation]>([])
    }

    /// Every batch made, for ``drain(_:)``; a thread's batch stays here after the thread ends.
    private final class Batches: Sendable {
        let all = Mutex<[Batch]>([])
    }

    private let batches = Batches()
    private let current: PerThread<Batch>
    /// Observations a thread gathers before it hands them over itself.
    let size: Int

    /// Batches of `size` observations.
    init(size: Int) {
        self.size = size
        let batches = batches
        current = PerThread {
            let batch = Batch()
            batches.all.withLock { $0.append(batch) }
            return batch
        }
    }

    /// Adds an observation to this thread's batch; when that fills it, returns the batch's
    /// observations to hand over (a result, not a callback: a closure would be one more object
    /// to count references to on every request).
    func add(_ observation: Observation) -> [Observation]? {
        let size = size
        return current.current.observations.withLock { observations -> [Observation]? in
            if observations.capacity < size { observations.reserveCapacity(size) }
            observations.append(observation)
            guard observations.count >= size else { return nil }
            defer { observations.removeAll(keepingCapacity: true) }
            return observations
        }
    }

    /// Hands over every thread's observations (to make the metrics complete before reading them).
    func drain(_ handOver: ([Observation]) -> Void) {
        for batch in batches.all.withLock({ $0 }) {
            let taken = batch.observations.withLock { observations -> [Observation] in
                defer { observations.removeAll(keepingCapacity: true) }
                return observations
            }
            if !taken.isEmpty { handOver(taken) }
        }
    }
}
