import Dispatch
import FlowTesting
import Glibc
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

    @Test("a request that waits resumes on the executor its responder prefers")
    func resumesOnPreferredExecutor() async throws {
        let executor = CountingExecutor()
        try await withServer(responder: WaitingResponder(executor: executor)) { server throws in
            for _ in 0..<3 {
                let answer = try await fetch(port: server.port, "/")
                #expect(answer.status == 200 && answer.text == "true\n", "\(answer.text)")
            }
        }
        #expect(executor.jobs >= 3, "each request resumed there after its wait")
    }

    /// The name of the thread running the caller.
    static func threadName() -> String {
        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    /// Answers with the thread it runs on before and after a wait another thread ends, and
    /// counts the answers it finished.
    final class ThreadReportingResponder: HTTPResponder {
        let finished = Atomic<Int>(0)
        /// Held closed until opened, when set: the wait then lasts until the test opens it.
        let gate: AsyncStream<Void>?
        /// Told as each request starts.
        let started: AsyncStream<Void>.Continuation?

        init(gate: AsyncStream<Void>? = nil, started: AsyncStream<Void>.Continuation? = nil) {
            self.gate = gate
            self.started = started
        }

        func respond(to request: Request) async -> Response {
            let before = PreferredExecutorTests.threadName()
            started?.yield()
            if let gate {
                for await _ in gate { break }
            } else {
                try? await Task.sleep(for: .milliseconds(5))
            }
            let after = PreferredExecutorTests.threadName()
            finished.add(1, ordering: .relaxed)
            return .text("\(before) \(after)")
        }
    }

    @Test("without a preference, a request that waits resumes on the server thread that received it")
    func resumesOnItsServerThread() async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.threads = 2
        let responder = ThreadReportingResponder()
        try await withServer(configuration, responder: responder) { server throws in
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await fetch(port: server.port, "/").text } }
                for try await text in group {
                    let threads = text.split(whereSeparator: \.isWhitespace).map(String.init)
                    #expect(threads.count == 2 && threads[0].hasPrefix("MicroHTTP-"), "\(text)")
                    #expect(threads.first == threads.last, "\(text)")
                }
            }
        }
        #expect(responder.finished.load(ordering: .relaxed) == 8)
    }

    @Test("a request's task that resumes after the server stopped still runs to its end")
    func resumesAfterTheStop() async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .milliseconds(100)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let (started, starting) = AsyncStream<Void>.makeStream()
        let responder = ThreadReportingResponder(gate: gate, started: starting)
        let server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
        async let answer = fetch(port: server.port, "/")
        for await _ in started { break }
        await server.stop()
        #expect(try await answer.status == 503)
        // The daemon's loop has ended: the task's job runs elsewhere, and the task ends.
        open.yield()
        for _ in 0..<1000 where responder.finished.load(ordering: .relaxed) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(responder.finished.load(ordering: .relaxed) == 1)
    }
}
