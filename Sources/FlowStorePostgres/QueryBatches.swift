import FlowStore
import Synchronization

/// Questions to the database asked together: while one query is in flight, the questions that
/// arrive wait for the next, which asks all of them at once. Under load a page of a held
/// session then costs a share of one round trip instead of a round trip of its own; a question
/// asked alone is sent at once.
///
/// Each question is answered by a query sent after it was asked, so the answer reflects every
/// commit that finished before, on any instance, exactly as a query of its own would.
///
/// No task of its own: the question that finds nothing in flight sends the query; when the
/// answer comes, it answers its batch and hands the next batch to the first question waiting,
/// whose task sends it.
final class QueryBatches<Key: Hashable & Sendable, Answer: Sendable>: Sendable {
    /// Asks the questions of `keys` in one query: each one's answer (a key absent from the
    /// answer has the batches' default answer).
    typealias Query = @Sendable ([Key]) async throws(StoreError) -> [Key: Answer]

    /// What a waiting question is told: its answer, or that it sends the next batch.
    private enum Turn: Sendable {
        case answered(Result<Answer, StoreError>)
        case sends
    }

    private struct Waiting {
        var key: Key
        var continuation: CheckedContinuation<Turn, Never>
    }

    private struct State {
        /// Whether a query is in flight (or about to be sent by a question told to send it).
        var sending = false
        /// The questions asked since, in order.
        var waiting: [Waiting] = []
    }

    private let state = Mutex(State())

    /// How many questions wait for the next query (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// The answer for a key the query answered nothing for.
    private let absent: Answer

    /// Batches in which a key the query does not answer has the answer `absent`.
    init(absent: Answer) {
        self.absent = absent
    }

    /// The answer for `key`, by `query` (in this call, or in another's that sends a batch with
    /// it).
    func answer(for key: Key, by query: Query) async throws(StoreError) -> Answer {
        let sendsNow = state.withLock { state in
            defer { state.sending = true }
            return !state.sending
        }
        if !sendsNow {
            let turn = await withCheckedContinuation { continuation in
                let sendsAfterAll = state.withLock { state in
                    // The batch in flight may have ended meanwhile: then this question sends.
                    guard state.sending else {
                        state.sending = true
                        return true
                    }
                    state.waiting.append(Waiting(key: key, continuation: continuation))
                    return false
                }
                if sendsAfterAll { continuation.resume(returning: .sends) }
            }
            if case .answered(let result) = turn { return try result.get() }
        }
        return try await send(first: key, by: query)
    }

    /// Sends the batch of `first` and of every question waiting now by `query`, answers them,
    /// and hands the next batch to the first question waiting after.
    private func send(first: Key, by query: Query) async throws(StoreError) -> Answer {
        let batch = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        var keys = Set(batch.map(\.key))
        keys.insert(first)
        let result: Result<[Key: Answer], StoreError>
        do { result = .success(try await query(Array(keys))) } catch { result = .failure(error) }
        for waiting in batch {
            waiting.continuation.resume(returning: .answered(result.map { $0[waiting.key] ?? absent }))
        }
        let next = state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else {
                state.sending = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .sends)
        return try result.map { $0[first] ?? absent }.get()
    }
}
