import FlowStore
import Synchronization
import Testing

@testable import FlowStorePostgres

/// A query that records the questions of each batch, answers each with itself and the batch's
/// number, and waits for ``release()`` before it answers while ``holds`` is set.
private final class RecordedQueries: Sendable {
    private let batches = Mutex<[[String]]>([])
    private let gates = Mutex<[CheckedContinuation<Void, Never>]>([])
    /// Whether the next queries wait for a release.
    let holds = Atomic<Bool>(true)
    /// Batches whose query fails, by number (1 is the first).
    let failing: Set<Int>

    init(failing: Set<Int> = []) { self.failing = failing }

    var asked: [[String]] { batches.withLock { $0 } }
    var heldCount: Int { gates.withLock { $0.count } }

    func query(_ keys: [String]) async throws(StoreError) -> [String] {
        let number = batches.withLock { batches in
            batches.append(keys.sorted())
            return batches.count
        }
        if holds.load(ordering: .relaxed) {
            await withCheckedContinuation { continuation in gates.withLock { $0.append(continuation) } }
        }
        if failing.contains(number) { throw .unavailable("batch \(number) failed") }
        return keys.map { "\($0) in batch \(number)" }
    }

    /// Lets the queries waiting answer.
    func release() {
        let waiting = gates.withLock { gates in
            defer { gates = [] }
            return gates
        }
        waiting.forEach { $0.resume() }
    }
}

/// Waits until `condition` holds (other tasks get there by themselves, with no deadline).
private func eventually(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

@Suite("questions to the database asked together")
struct QueryBatchesTests {
    @Test("a question asked alone is sent at once; those asked while it is in flight go together in the next query")
    func batching() async throws {
        let batches = QueryBatches<String, String>()
        let queries = RecordedQueries()
        async let first = batches.answer("a", by: queries.query)
        await eventually { queries.heldCount == 1 }
        #expect(queries.asked == [["a"]])
        // Asked while the first query is in flight: answered by a query sent after they were
        // asked, never by the one in flight; each gets its own answer.
        async let b = batches.answer("b", by: queries.query)
        async let c = batches.answer("c", by: queries.query)
        async let again = batches.answer("b", by: queries.query)
        await eventually { batches.waitingCount == 3 }
        queries.holds.store(false, ordering: .relaxed)
        queries.release()
        #expect(try await first == "a in batch 1")
        #expect(try await [b, c, again] == ["b in batch 2", "c in batch 2", "b in batch 2"])
        #expect(queries.asked == [["a"], ["b", "b", "c"]])
        // Nothing in flight any more: the next question is sent at once.
        #expect(try await batches.answer("d", by: queries.query) == "d in batch 3")
    }

    @Test("a failed query fails the questions of its batch only; the next batch is sent")
    func failure() async throws {
        let batches = QueryBatches<String, String>()
        let queries = RecordedQueries(failing: [2])
        async let first = batches.answer("a", by: queries.query)
        await eventually { queries.heldCount == 1 }
        let b = Task { try await batches.answer("b", by: queries.query) }
        await eventually { batches.waitingCount == 1 }
        queries.release()  // the first query answers; the second waits in its turn
        #expect(try await first == "a in batch 1")
        await eventually { queries.heldCount == 1 }
        async let c = batches.answer("c", by: queries.query)
        await eventually { batches.waitingCount == 1 }
        queries.holds.store(false, ordering: .relaxed)
        queries.release()
        await #expect(throws: StoreError.unavailable("batch 2 failed")) { try await b.value }
        #expect(try await c == "c in batch 3")
        // A query that answers another number of questions than it was asked fails its batch.
        await #expect(throws: StoreError.unavailable("0 answers came for 1 questions")) {
            try await batches.answer("e") { _ async throws(StoreError) in [] }
        }
    }

    @Test("a batch is sent by a task of its own: an asker's cancelled task does not cancel its batch's query")
    func cancelledAsker() async throws {
        let batches = QueryBatches<String, String>()
        let asker = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await batches.answer("a") { keys async throws(StoreError) in
                if Task.isCancelled { throw .unavailable("the batch's query was cancelled") }
                return keys.map { "answer to \($0)" }
            }
        }
        asker.cancel()
        #expect(try await asker.value == "answer to a")
    }

    @Test("many questions at once are each answered with their own answer")
    func manyAtOnce() async throws {
        let batches = QueryBatches<String, String>()
        let answers = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<500 {
                group.addTask {
                    let key = "key \(index % 50)"
                    let answer = try await batches.answer(key) { keys async throws(StoreError) in
                        await Task.yield()
                        return keys.map { "answer to \($0)" }
                    }
                    return (key, answer)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 500)
        #expect(answers.allSatisfy { "answer to \($0.0)" == $0.1 })
        #expect(batches.waitingCount == 0)
    }

    @Test(
        "questions answered by a callback go in the same batches as the tasks'")
    func callbacks() async throws {
        let batches = QueryBatches<String, String>()
        let queries = RecordedQueries(failing: [3])
        let answers = AsyncStream<String>.makeStream()
        let answer = { @Sendable (result: Result<String, StoreError>) -> Void in
            _ = answers.continuation.yield((try? result.get()) ?? "failed")
        }
        // Nothing in flight: the callback's question is sent at once.
        batches.answer("a", then: answer, by: queries.query)
        await eventually { queries.heldCount == 1 }
        // In flight: a callback and a task wait together for the next batch.
        batches.answer("b", then: answer, by: queries.query)
        async let c = batches.answer("c", by: queries.query)
        await eventually { batches.waitingCount == 2 }
        queries.release()
        await eventually { queries.heldCount == 1 }
        #expect(queries.asked == [["a"], ["b", "c"]])
        // A callback waiting behind them is answered by the batch after, which fails.
        batches.answer("d", then: answer, by: queries.query)
        await eventually { batches.waitingCount == 1 }
        queries.holds.store(false, ordering: .relaxed)
        queries.release()
        #expect(try await c == "c in batch 2")
        var told: [String] = []
        for await text in answers.stream {
            told.append(text)
            if told.count == 3 { break }
        }
        #expect(Set(told) == ["a in batch 1", "b in batch 2", "failed"])
        #expect(queries.asked == [["a"], ["b", "c"], ["d"]])
        #expect(batches.waitingCount == 0)
    }
}
