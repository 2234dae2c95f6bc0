import FlowStore
import Synchronization
import Testing

@testable import FlowStorePostgres

/// A query that records the keys of each batch, answers each key with the batch's number, and
/// waits for ``release()`` before it answers while ``holds`` is set.
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

    func query(_ keys: [String]) async throws(StoreError) -> [String: String] {
        let number = batches.withLock { batches in
            batches.append(keys.sorted())
            return batches.count
        }
        if holds.load(ordering: .relaxed) {
            await withCheckedContinuation { continuation in gates.withLock { $0.append(continuation) } }
        }
        if failing.contains(number) { throw .unavailable("batch \(number) failed") }
        return Dictionary(uniqueKeysWithValues: keys.filter { $0 != "absent" }.map { ($0, "batch \(number)") })
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
        let batches = QueryBatches<String, String>(absent: "none")
        let queries = RecordedQueries()
        async let first = batches.answer(for: "a", by: queries.query)
        await eventually { queries.heldCount == 1 }
        #expect(queries.asked == [["a"]])
        // Asked while the first query is in flight: answered by a query sent after they were
        // asked, never by the one in flight. The same key twice is asked once.
        async let b = batches.answer(for: "b", by: queries.query)
        async let c = batches.answer(for: "c", by: queries.query)
        async let again = batches.answer(for: "b", by: queries.query)
        async let absent = batches.answer(for: "absent", by: queries.query)
        await eventually { batches.waitingCount == 4 }
        queries.holds.store(false, ordering: .relaxed)
        queries.release()
        #expect(try await first == "batch 1")
        #expect(try await [b, c, again, absent] == ["batch 2", "batch 2", "batch 2", "none"])
        #expect(queries.asked == [["a"], ["absent", "b", "c"]])
        // Nothing in flight any more: the next question is sent at once.
        #expect(try await batches.answer(for: "d", by: queries.query) == "batch 3")
    }

    @Test("a failed query fails the questions of its batch only; the next batch is sent")
    func failure() async throws {
        let batches = QueryBatches<String, String>(absent: "none")
        let queries = RecordedQueries(failing: [2])
        async let first = batches.answer(for: "a", by: queries.query)
        await eventually { queries.heldCount == 1 }
        let b = Task { try await batches.answer(for: "b", by: queries.query) }
        await eventually { batches.waitingCount == 1 }
        queries.release()  // the first query answers; the second waits in its turn
        #expect(try await first == "batch 1")
        await eventually { queries.heldCount == 1 }
        async let c = batches.answer(for: "c", by: queries.query)
        await eventually { batches.waitingCount == 1 }
        queries.holds.store(false, ordering: .relaxed)
        queries.release()
        await #expect(throws: StoreError.unavailable("batch 2 failed")) { try await b.value }
        #expect(try await c == "batch 3")
    }

    @Test("many questions at once are each answered with their own key's answer")
    func manyAtOnce() async throws {
        let batches = QueryBatches<String, String>(absent: "none")
        let answers = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<500 {
                group.addTask {
                    let key = "key \(index % 50)"
                    let answer = try await batches.answer(for: key) { keys async throws(StoreError) in
                        await Task.yield()
                        return Dictionary(uniqueKeysWithValues: keys.map { ($0, "answer to \($0)") })
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
}
