import Dispatch
import FlowTesting
import Synchronization
import Testing

@testable import MicroHTTP

@Suite("The responder's preferred executor")
struct PreferredExecutorTests {
    /// An executor on a queue of its own that counts the jobs it ran.
    final class CountingExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "preferred")
        private let count = Atomic<Int>(0)
        var jobs: Int { count.load(ordering: .relaxed) }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async {
                self.count.add(1, ordering: .relaxed)
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
    }

    /// Answers with whether it resumed on its preferred executor after waiting.
    struct WaitingResponder: HTTPResponder {
        let executor: CountingExecutor?

        func respond(to request: Request) async -> Response {
            try? await Task.sleep(for: .milliseconds(5))
            let resumedThere = executor.map { executor in
                withUnsafeCurrentTask { $0?.unownedTaskExecutor } == executor.asUnownedTaskExecutor()
            }
            return .text(resumedThere.map { "\($0)" } ?? "none")
        }

        func preferredTaskExecutor() -> (any TaskExecutor)? { executor }
    }

    @Test("a request that waits resumes on the executor its responder prefers; without one, on the global executor")
    func resumesOnPreferredExecutor() async throws {
        let executor = CountingExecutor()
        try await withServer(responder: WaitingResponder(executor: executor)) { server throws in
            for _ in 0..<3 {
                let answer = try await fetch(port: server.port, "/")
                #expect(answer.status == 200 && answer.text == "true\n", "\(answer.text)")
            }
        }
        #expect(executor.jobs >= 3, "each request resumed there after its wait")
        try await withServer(responder: WaitingResponder(executor: nil)) { server throws in
            #expect(try await fetch(port: server.port, "/").text == "none\n")
        }
    }
}
