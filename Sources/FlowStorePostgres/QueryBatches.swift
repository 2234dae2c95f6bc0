import FlowStore
import Synchronization

/// Questions to the database asked together: while a query is in flight in each of the batches'
/// slots, the questions that arrive wait for the next, which asks all of them at once. Under load a page of a held
/// session then costs a share of one round trip instead of a round trip of its own, and a step's
/// commit a share of one transaction; a question asked alone is sent at once.
///
/// Each question is answered by a query sent after it was asked, so the answer reflects every
/// commit that finished before, on any instance, exactly as a query of its own would.
///
/// A slot's queries are sent by a task of its own while questions keep coming (a driver): the
/// question that finds a slot free starts it, on its own thread until the query is sent; then it
/// goes on where the slot's answers arrive (the executor given for the slot: its connection's
/// event loop), answers each batch there and sends the next from there, with no thread woken in
/// between; it ends when no question waits.
final class QueryBatches<Question: Sendable, Answer: Sendable>: Sendable {
    /// Asks `questions` in one query, in `slot` (from 0: a query at a time in each, so each may
    /// have a connection of its own): their answers, in their order.
    typealias Query = @Sendable (_ questions: [Question], _ slot: Int) async throws(StoreError) -> [Answer]

    private struct Waiting {
        var question: Question
        var continuation: CheckedContinuation<Result<Answer, StoreError>, Never>
    }

    private struct State {
        /// The slots with no driver.
        var free: [Int]
        /// The questions asked and not sent yet, in order.
        var waiting: [Waiting] = []
    }

    private let state: Mutex<State>
    /// Where each slot's driver goes on once its query is sent (`nil`: anywhere).
    private let executors: [(any TaskExecutor)?]

    /// How many questions wait for the next query (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Batches with `slots` queries in flight at most, whose drivers go on anywhere.
    convenience init(slots: Int = 1) {
        self.init(executors: Array(repeating: nil, count: slots))
    }

    /// Batches with a slot for each of `executors`, where that slot's driver goes on once its
    /// query is sent.
    init(executors: [(any TaskExecutor)?]) {
        precondition(!executors.isEmpty, "batches need a slot")
        self.executors = executors
        state = Mutex(State(free: Array(executors.indices.reversed())))
    }

    /// The answer to `question`, by `query` (in the batch of a slot's driver, started by this
    /// call when a slot is free).
    func answer(_ question: Question, by query: @escaping Query) async throws(StoreError) -> Answer {
        try await withCheckedContinuation { continuation in
            let slot = state.withLock { state in
                state.waiting.append(Waiting(question: question, continuation: continuation))
                return state.free.popLast()
            }
            guard let slot else { return }
            Task.immediate(executorPreference: executors[slot]) { await self.drive(slot, by: query) }
        }.get()
    }

    /// Sends the questions waiting by `query` in `slot`, batch after batch, and answers them,
    /// until none waits; then frees the slot.
    private func drive(_ slot: Int, by query: Query) async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.free.append(slot) }
                return state.waiting
            }
            guard !batch.isEmpty else { return }
            var result: Result<[Answer], StoreError>
            do { result = .success(try await query(batch.map(\.question), slot)) } catch {
                result = .failure(error)
            }
            if case .success(let answers) = result, answers.count != batch.count {
                result = .failure(.unavailable("\(answers.count) answers came for \(batch.count) questions"))
            }
            for (index, waiting) in batch.enumerated() {
                waiting.continuation.resume(returning: result.map { $0[index] })
            }
        }
    }
}
