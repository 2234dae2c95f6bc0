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
/// No task of its own: the question that finds nothing in flight sends the query; when the
/// answer comes, it answers its batch and hands the next batch to the first question waiting,
/// whose task sends it. A question may also wait with a callback instead of a task (a page
/// answered where its stamp arrives): the task that sends its batch calls it, and a task is made
/// for it only when its turn is to send.
final class QueryBatches<Question: Sendable, Answer: Sendable>: Sendable {
    /// Asks `questions` in one query (one at a time, so it may have a connection of its own):
    /// their answers, in their order.
    typealias Query = @Sendable (_ questions: [Question]) async throws(StoreError) -> [Answer]

    /// What a waiting question is told: its answer, or that it sends the next batch.
    private enum Turn: Sendable {
        case answered(Result<Answer, StoreError>)
        case sends
    }

    /// How a waiting question is told its turn.
    private enum Resumption: Sendable {
        /// A task waits: it is resumed.
        case task(CheckedContinuation<Turn, Never>)
        /// A callback waits, with no task: it is called with the answer, and a task is made only
        /// when its turn is to send.
        case callback(@Sendable (Result<Answer, StoreError>) -> Void)
    }

    private struct Waiting {
        var question: Question
        var resumption: Resumption

        func answer(_ result: Result<Answer, StoreError>) {
            switch resumption {
            case .task(let continuation): continuation.resume(returning: .answered(result))
            case .callback(let then): then(result)
            }
        }

        /// Tells the question that it sends the next batch, by `query`.
        func send(by query: @escaping Query, in batches: QueryBatches) {
            switch resumption {
            case .task(let continuation): continuation.resume(returning: .sends)
            case .callback(let then):
                let question = question
                Task {
                    do throws(StoreError) { then(.success(try await batches.send(first: question, by: query))) } catch {
                        then(.failure(error))
                    }
                }
            }
        }
    }

    private struct State {
        /// Whether a query is in flight (or about to be sent by a question told to).
        var inFlight = false
        /// The questions asked since the last query was sent, in order.
        var waiting: [Waiting] = []
    }

    private let state = Mutex(State())

    /// How many questions wait for the next query (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Batches with nothing in flight yet.
    init() {}

    /// The answer to `question`, by `query` (in this call, or in another's that sends a batch
    /// with it).
    func answer(_ question: Question, by query: @escaping Query) async throws(StoreError) -> Answer {
        let sendsNow = state.withLock { state in
            defer { state.inFlight = true }
            return !state.inFlight
        }
        if !sendsNow {
            let turn = await withCheckedContinuation { continuation in
                let sends = state.withLock { state in
                    // The query in flight may have ended meanwhile: then this question sends.
                    guard state.inFlight else {
                        state.inFlight = true
                        return true
                    }
                    state.waiting.append(Waiting(question: question, resumption: .task(continuation)))
                    return false
                }
                if sends { continuation.resume(returning: .sends) }
            }
            if case .answered(let result) = turn { return try result.get() }
        }
        return try await send(first: question, by: query)
    }

    /// The answer to `question`, by `query`, given to `then` (from any thread): with no task
    /// while another question sends the batch, in a task of its own when it sends.
    func answer(
        _ question: Question, then: @escaping @Sendable (Result<Answer, StoreError>) -> Void, by query: @escaping Query
    ) {
        let waiting = Waiting(question: question, resumption: .callback(then))
        let sendsNow = state.withLock { state in
            guard state.inFlight else {
                state.inFlight = true
                return true
            }
            state.waiting.append(waiting)
            return false
        }
        if sendsNow { waiting.send(by: query, in: self) }
    }

    /// Sends the batch of `first` and of every question waiting now by `query`, answers them, and
    /// hands the next batch to the first question waiting after.
    fileprivate func send(first: Question, by query: @escaping Query) async throws(StoreError) -> Answer {
        let batch = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        var result: Result<[Answer], StoreError>
        do { result = .success(try await query([first] + batch.map { $0.question })) } catch {
            result = .failure(error)
        }
        if case .success(let answers) = result, answers.count != batch.count + 1 {
            result = .failure(.unavailable("\(answers.count) answers came for \(batch.count + 1) questions"))
        }
        for (index, waiting) in batch.enumerated() {
            waiting.answer(result.map { $0[index + 1] })
        }
        let next = state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else {
                state.inFlight = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.send(by: query, in: self)
        return try result.map { $0[0] }.get()
    }
}
