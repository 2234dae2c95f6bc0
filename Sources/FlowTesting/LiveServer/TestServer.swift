import FlowCore
import FlowStore
import FlowWeb
import Foundation
import Logging
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle

/// An app served in the test process on 127.0.0.1 and a free port, with its templates over
/// FlowServer's defaults and sessions in memory: pages, steps, deep links and the JSON API over
/// real HTTP, without starting a process.
///
/// ```swift
/// @Test func theCartStartsEmpty() async throws {
///     try await TestServer.with(try CheckoutApp.webApp(), templates: "Templates") { server in
///         let browser = server.browser()
///         let home = try await browser.get("/")                      // 303 to the top page
///         #expect(try await browser.get(home.header("Location")!).text.contains("Your cart is empty"))
///         #expect(try await server.session(of: browser).topURL == "/cart")
///     }
/// }
/// ```
public final class TestServer: Sendable {
    /// The server's port on 127.0.0.1.
    public let port: Int
    /// Where its sessions are.
    public let store: MemorySessionStore
    /// The app's `FlowWebService` (the server and what works beside it, as FlowServerRuntime
    /// runs them), in a group of its own.
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// Starts `app` with the templates in `templates` (over `FlowWebDefaults`) and the files in
    /// `publicDirectory`; `configure` adjusts the web configuration (no limit on new sessions
    /// by default: tests make many from one address).
    ///
    /// - Throws: the templates' `TemplateError`, a missing page template as
    ///   `WebAppError`, or `FlowWebServiceError` when the server cannot listen.
    public init<Step: FlowStep>(
        _ app: WebApp<Step>, templates: String, publicDirectory: String? = nil,
        configure: (inout WebConfiguration) -> Void = { _ in }
    ) async throws {
        let library = try FlowWebDefaults.templates(directory: templates)
        try app.checkTemplates(library, loadedFrom: templates)
        var configuration = WebConfiguration(publicDirectory: publicDirectory, newSessionsPerMinute: 0)
        configure(&configuration)
        store = MemorySessionStore()
        // Warnings and up: a test's output is its own, not a log line per navigation.
        var logger = Logger(label: "FlowTesting")
        logger.logLevel = .warning
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let service = FlowWebService(
            app: app, store: store, templates: library, configuration: configuration,
            server: .init(host: "127.0.0.1", port: 0), logger: logger
        ) { port in
            listening.yield(port)
            listening.finish()
        }
        group = ServiceGroup(services: [service], logger: logger)
        running = Task { [group] in
            defer { listening.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await running.value
            throw TestConnectionError(description: "the server stopped before it listened")
        }
        self.port = port
    }

    /// Runs `body` with a server of `app` started, and stops it afterwards, whatever happened.
    public static func with<Step: FlowStep, Result>(
        _ app: WebApp<Step>, templates: String, publicDirectory: String? = nil,
        _ body: (TestServer) async throws -> Result
    ) async throws -> Result {
        let server = try await TestServer(app, templates: templates, publicDirectory: publicDirectory)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// A browser without cookies on this server.
    public func browser() -> TestBrowser { TestBrowser(port: port) }

    /// The session `browser` holds, as the JSON API shows it (`GET /api/v1/session`): the
    /// server's own state, to check beside what a page shows.
    public func session(of browser: TestBrowser) async throws -> SessionState {
        let response = try await browser.get("/api/v1/session")
        guard response.status == 200 else {
            throw TestConnectionError(description: "GET /api/v1/session answered \(response.status): \(response.text)")
        }
        return try SessionState(json: response.body)
    }

    /// Stops the server (it finishes what it is answering and closes), then its services.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await running.result
    }
}

/// A session's state as `GET /api/v1/session` gives it, with what tests ask most.
public struct SessionState: Sendable {
    /// The session's version (one more with each change).
    public let version: Int
    /// The URL of the page on top.
    public let topURL: String
    /// The name of the page on top.
    public let topPage: String
    /// The whole document, as JSON.
    public let json: [UInt8]

    init(json: [UInt8]) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
            let version = object["version"] as? Int, let top = object["top"] as? [String: Any],
            let url = top["url"] as? String, let page = top["page"] as? String
        else {
            throw TestConnectionError(description: "not a session document: \(String(decoding: json, as: UTF8.self))")
        }
        self.version = version
        topURL = url
        topPage = page
        self.json = json
    }
}
