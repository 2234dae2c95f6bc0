import FlowStore
import Synchronization

/// Questions to the database asked together: while a query is in flight, the questions that
/// arrive wait for the next, which asks all of them at once. Under load a page of a held session
/// then costs a share of one round trip instead of a round trip of its own, and a step's commit a
/// share of one transaction; a question asked alone is sent at once.
///
/// Each question is answered by a query sent after it was asked, so the answer reflects every
/// commit that finished before, on any instance, exactly as a query of its own would.
///
/// One task sends the batches, made when a question finds none running and ended when a batch's
/// answer finds no question waiting: it answers each batch and sends the next at once. Handed
/// from one asker's task to the next, the next batch waited for that task's turn on the
/// cooperative pool, behind the tasks of the batch just answered rendering their pages, while the
/// database idled (session 40: pinned PostgreSQL steps 6,830 -> 7,420 req/s). A question waits
/// with a continuation, or with a callback and no task at all (a page answered where its stamp
/// arrives).
final class QueryBatches<Question: Sendable, Answer: Sendable>: Sendable {
    /// Asks `questions` in one query (one at a time, so it may have a connection of its own):
    /// their answers, in their order.
    typealias Query = @Sendable (_ questions: [Question]) async throws(StoreError) -> [Answer]

    /// How a waiting question is told its answer.
    private enum Resumption: Sendable {
        /// A task waits: it is resumed.
        case task(CheckedContinuation<Result<Answer, StoreError>, Never>)
        /// A callback waits, with no task: it is called with the answer.
        case callback(@Sendable (Result<Answer, StoreError>) -> Void)
    }

    private struct Waiting {
        var question: Question
        var resumption: Resumption

        func answer(_ result: Result<Answer, StoreError>) {
            switch resumption {
            case .task(let continuation): continuation.resume(returning: result)
            case .callback(let then): then(result)
            }
        }
    }

    private struct State {
        /// Whether a sender runs (sending, or about to take the next batch).
        var senderRuns = false
        /// The questions asked since the last query was sent, in order.
        var waiting: [Waiting] = []
    }

    private let state = Mutex(State())

    /// How many questions wait for the next query (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Batches with nothing in flight yet.
    init() {}

    /// The answer to `question`, by `query` (in the batch it joins).
    func answer(_ question: Question, by query: @escaping Query) async throws(StoreError) -> Answer {
        try await withCheckedContinuation { continuation in
            ask(Waiting(question: question, resumption: .task(continuation)), by: query)
        }.get()
    }

    /// The answer to `question`, by `query`, given to `then` (from any thread), with no task of
    /// the caller's waiting.
    func answer(
        _ question: Question, then: @escaping @Sendable (Result<Answer, StoreError>) -> Void, by query: @escaping Query
    ) {
        ask(Waiting(question: question, resumption: .callback(then)), by: query)
    }

    /// Queues `waiting`, and starts the sender when none runs.
    private func ask(_ waiting: Waiting, by query: @escaping Query) {
        let starts = state.withLock { state in
            state.waiting.append(waiting)
            defer { state.senderRuns = true }
            return !state.senderRuns
        }
        // At the priority of the changes whose commits it sends (FlowWeb's `SessionService`
        // raises a change's task to `.high`), so that a batch is not sent after new requests' work.
        if starts { Task(priority: .high) { await self.sendAll(by: query) } }
    }

    /// Sends every question waiting, a batch at a time, until none waits.
    private func sendAll(by query: @escaping Query) async {
        while true {
            let batch = state.withLock { state in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.senderRuns = false }
                return state.waiting
            }
            guard !batch.isEmpty else { return }
            var result: Result<[Answer], StoreError>
            do { result = .success(try await query(batch.map { $0.question })) } catch {
                result = .failure(error)
            }
            if case .success(let answers) = result, answers.count != batch.count {
                result = .failure(.unavailable("\(answers.count) answers came for \(batch.count) questions"))
            }
            for (index, waiting) in batch.enumerated() {
                waiting.answer(result.map { $0[index] })
            }
        }
    }
}
