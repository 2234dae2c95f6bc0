import FlowTesting
import Foundation
import MicroHTTP
import Testing

/// A router whose `/slow` answers after `delay`; `started` gets an element as each `/slow`
/// request begins, so tests stop the server only once a request is surely in flight.
private func slowRouter(delay: Duration, started: AsyncStream<Void>.Continuation? = nil) -> Router {
    var router = Router()
    router.add(.get, "/slow") { _, _ in
        started?.yield()
        try? await Task.sleep(for: delay)
        return .text("done")
    }
    router.add(.get, "/hello") { _, _ in .text("hello") }
    return router
}

@Suite("Graceful stop")
struct ShutdownTests {
    /// Seconds a stop may take with a request that does not finish: its grace period and about
    /// three seconds more (``HTTPServer/stop()``), with room for a loaded host, where the whole
    /// suite on two slow shared cores took 3.3 s. A stop that waited for the request would take
    /// a minute, or forever.
    static let stopBound: TimeInterval = 10

    @Test("a request in flight completes, then the server stops listening")
    func inFlightRequestCompletes() async throws {
        let (started, signal) = AsyncStream<Void>.makeStream()
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0),
            responder: slowRouter(delay: .milliseconds(400), started: signal))
        try server.start()
        let port = server.port
        async let response = fetch(port: port, "/slow")
        for await _ in started { break }
        let stopped = Date()
        await server.stop()
        #expect(Date().timeIntervalSince(stopped) < 5)
        let answer = try await response
        #expect(answer.status == 200)
        #expect(answer.text == "done\n")
        await #expect(throws: TestConnectionError.self) {
            try await fetch(port: port, "/hello")
        }
    }

    @Test("requests still running after the grace period get 503")
    func gracePeriodBounded() async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .milliseconds(200)
        let (inFlight, signal) = AsyncStream<Void>.makeStream()
        let server = HTTPServer(
            configuration: configuration, responder: slowRouter(delay: .seconds(60), started: signal))
        try server.start()
        async let response = fetch(port: server.port, "/slow")
        for await _ in inFlight { break }
        let started = Date()
        await server.stop()
        #expect(Date().timeIntervalSince(started) < Self.stopBound, "the stop did not wait for the minute-long request")
        #expect(try await response.status == 503)
    }

    @Test("run() returns after shutdown(), and stop() is idempotent")
    func runUntilShutdown() async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: slowRouter(delay: .zero))
        try server.start()
        #expect(try await fetch(port: server.port, "/hello").status == 200)
        async let running = server.run()
        server.shutdown()
        #expect(await running.isClean)
        #expect(await server.stop().isClean)
        #expect(await server.stop().isClean)
    }

    @Test("a handler that never returns: the stop ends after the grace period, answers it 503 and reports its route")
    func handlerThatNeverReturns() async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .milliseconds(300)
        let (started, signal) = AsyncStream<Void>.makeStream()
        let never = ClosureResponder { _ in
            signal.yield()
            // Waits for a continuation nobody resumes, and ignores cancellation.
            let forever = AsyncStream<Void>.makeStream()
            for await _ in forever.stream {}
            return .text("unreachable")
        }
        let server = HTTPServer(configuration: configuration, responder: never)
        try server.start()
        async let response = fetch(port: server.port, "/never?token=secret")
        for await _ in started { break }
        let stopping = Date()
        let report = await server.stop()
        #expect(Date().timeIntervalSince(stopping) < Self.stopBound)
        #expect(report.unfinishedRequests == ["GET /never"], "the route, without the query")
        #expect(report.stuckThreads.isEmpty)
        #expect(try await response.status == 503)
    }

    @Test("a server thread stuck in a responder: the stop still returns, and reports the thread's request")
    func stuckServerThread() async throws {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threads: 1)
        configuration.shutdownGracePeriod = .milliseconds(200)
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let server = HTTPServer(
            configuration: configuration, responder: BlockingResponder(entered: entered, release: release))
        try server.start()
        let port = server.port
        let request = Task.detached { try? await fetch(port: port, "/block") }
        try await onThread { entered.wait() }  // the server thread is in the responder now
        let stopping = Date()
        let report = await server.stop()
        #expect(Date().timeIntervalSince(stopping) < 5)
        #expect(report.stuckThreads == ["GET /block"])
        #expect(!report.isClean)
        release.signal()  // lets the abandoned thread go, so the test process holds no stuck thread
        request.cancel()
    }
}

/// A responder whose immediate answer blocks the server's thread until `release` is signalled:
/// the kind of bug a stop must survive.
private struct BlockingResponder: HTTPResponder {
    let entered: DispatchSemaphore
    let release: DispatchSemaphore

    func respond(to request: Request) async -> Response { .text("late") }

    func immediateResponse(to request: Request) -> Response? {
        entered.signal()
        release.wait()
        return .text("late")
    }
}
