import FlowStore
import FlowTesting
import FlowWeb
import Logging
import MicroHTTP
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

/// The order things ended in, as the services and a slow request saw it.
private final class EndOrder: Sendable {
    private let events = Mutex<[String]>([])
    var list: [String] { events.withLock { $0 } }
    func record(_ event: String) { events.withLock { $0.append(event) } }
}

/// An app service that records when it is told to stop.
private struct StopRecorder: Service {
    let order: EndOrder

    func run() async {
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully && !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        } onGracefulShutdown: {
            order.record("app service told to stop")
        }
    }
}

/// A route that answers after 300 ms: a request in flight when the stop comes.
private struct SlowRoute: WebRouteCollection {
    let order: EndOrder

    func register(on router: inout Router, sessions: BrowserSessions<WebStep>) {
        router.add(.get, "/slow") { _, _ in
            try? await Task.sleep(for: .milliseconds(300))
            order.record("slow request answered")
            return .text("done")
        }
    }
}

@Suite("An app's background services")
struct BackgroundServiceTests {
    @Test("an app's service runs while the app is served and is stopped gracefully with it")
    func appService() async throws {
        let heartbeats = Heartbeats()
        let app = try TestSite.webApp(backgroundServices: [heartbeats])
        let server = try await TestServer(app, templates: try TestTemplates.directory().path)
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

    @Test(
        "FlowWebService in an app's own group: it listens, serves, and on graceful shutdown lets the server finish first, then stops what works beside it"
    )
    func serviceInAnAppsGroup() async throws {
        let order = EndOrder()
        let app = try TestSite.webApp(
            routeCollections: [SlowRoute(order: order)], backgroundServices: [StopRecorder(order: order)])
        let templates = try FlowWebDefaults.templates(directory: try TestTemplates.directory().path)
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let web = FlowWebService(
            app: app, store: MemorySessionStore(), templates: templates, server: .init(host: "127.0.0.1", port: 0)
        ) { port in
            listening.yield(port)
        }
        let group = ServiceGroup(services: [web], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        #expect(try await TestBrowser(port: port).get("/").status == 303)
        let slow = Task { try await TestBrowser(port: port).get("/slow").text }
        try await Task.sleep(for: .milliseconds(100))
        await group.triggerGracefulShutdown()
        try await running.value
        let answer = try await slow.value
        #expect(answer == "done\n", "the request in flight finished")
        #expect(web.report?.isClean == true)
        #expect(order.list == ["slow request answered", "app service told to stop"])

        let blocker = try await TestServer(app, templates: try TestTemplates.directory().path)
        let busy = FlowWebService(
            app: app, store: MemorySessionStore(), templates: templates,
            server: .init(host: "127.0.0.1", port: blocker.port))
        await #expect(throws: FlowWebServiceError.self, "a port in use is an error, not a hang") {
            try await ServiceGroup(services: [busy], logger: Logger(label: "test")).run()
        }
        await blocker.stop()
    }
}
