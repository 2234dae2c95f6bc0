import Foundation
import FlowTesting
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
    @Test("a request in flight completes, then the server stops listening")
    func inFlightRequestCompletes() async throws {
        let (started, signal) = AsyncStream<Void>.makeStream()
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0), responder: slowRouter(delay: .milliseconds(400), started: signal))
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
        let server = HTTPServer(configuration: configuration, responder: slowRouter(delay: .seconds(5), started: signal))
        try server.start()
        async let response = fetch(port: server.port, "/slow")
        for await _ in inFlight { break }
        let started = Date()
        await server.stop()
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(try await response.status == 503)
    }

    @Test("run() returns after shutdown(), and stop() is idempotent")
    func runUntilShutdown() async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: slowRouter(delay: .zero))
        try server.start()
        #expect(try await fetch(port: server.port, "/hello").status == 200)
        async let running: Void = server.run()
        server.shutdown()
        await running
        await server.stop()
        await server.stop()
    }
}
