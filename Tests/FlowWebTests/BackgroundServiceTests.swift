import FlowTesting
import FlowWeb
import ServiceLifecycle
import Synchronization
import Testing

/// An app's own background work, run beside the server like FlowServer's own.
private final class Heartbeats: Service {
    private let state = Mutex((beats: 0, stoppedGracefully: false))

    var beats: Int { state.withLock { $0.beats } }
    var stoppedGracefully: Bool { state.withLock { $0.stoppedGracefully } }

    func run() async {
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                state.withLock { $0.beats += 1 }
                try? await Task.sleep(for: .milliseconds(5))
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.stoppedGracefully = true }
        }
    }
}

@Suite("An app's background services")
struct BackgroundServiceTests {
    @Test("an app's service runs while the app is served and is stopped gracefully with it")
    func appService() async throws {
        let heartbeats = Heartbeats()
        let app = try TestSite.webApp(backgroundServices: [heartbeats])
        let server = try TestServer(app, templates: try TestTemplates.directory().path)
        #expect(try await server.browser().get("/").status == 303)
        for _ in 0..<200 where heartbeats.beats < 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(heartbeats.beats >= 3, "the service runs")
        #expect(!heartbeats.stoppedGracefully)
        await server.stop()
        #expect(heartbeats.stoppedGracefully, "stopping the server stops its services gracefully")
        let beatsAfterStop = heartbeats.beats
        try await Task.sleep(for: .milliseconds(50))
        #expect(heartbeats.beats == beatsAfterStop, "and they are over")
    }
}
