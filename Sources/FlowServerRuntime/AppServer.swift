import FlowCore
import FlowStore
import FlowWeb
import Logging
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An app served over HTTP, as the service `FlowServerRuntime` runs after its store's: it gets
/// the store ready (connects, migrates), reads the session secret, makes the responder, listens,
/// announces the address, and serves until graceful shutdown, with the services that work beside
/// the server — the purger, the responder's (live tabs), the app's own — in a group of their own.
/// On graceful shutdown the server stops first (it stops accepting, requests in flight finish),
/// then those services.
final class AppServer<Step: FlowStep>: Service {
    /// What the runtime needs to make the server, once the store is ready.
    struct Parts: Sendable {
        var name: String
        var app: WebApp<Step>
        var store: any SessionStore
        var templates: TemplateLibrary
        var options: ServerOptions
        var webConfiguration: @Sendable (_ secret: [UInt8]) -> WebConfiguration
        var serverConfiguration: HTTPServer.Configuration
        /// Called once the server listens: work that is worth doing only for a server that serves.
        var whenServing: @Sendable () -> Void = {}
    }

    /// Why the server could not start, in a line for standard error.
    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    private let parts: Parts
    private let logger: Logger
    private let stopReport = Mutex<StopReport?>(nil)

    init(_ parts: Parts, logger: Logger) {
        self.parts = parts
        self.logger = logger
    }

    /// How the server stopped (`nil` until it has).
    var report: StopReport? { stopReport.withLock { $0 } }

    func run() async throws {
        let store = parts.store
        do { try await store.prepare() } catch { throw StartFailure(description: "\(error)") }
        let secret: [UInt8]
        if let given = parts.options.sessionSecret {
            secret = Array(given.utf8)
        } else {
            do { secret = try await store.sessionSecret(proposing: WebConfiguration.newSessionSecret()) } catch {
                throw StartFailure(description: "cannot read the session secret from the store: \(error)")
            }
        }
        let responder = FlowWebResponder(
            app: parts.app, store: store, templates: parts.templates, configuration: parts.webConfiguration(secret),
            logger: Logger(label: "\(parts.name).web"))
        let server = HTTPServer(
            configuration: parts.serverConfiguration, responder: responder, logger: Logger(label: "\(parts.name).http"))
        do { try server.start() } catch { throw StartFailure(description: "\(error)") }
        let host = parts.options.host.contains(":") ? "[\(parts.options.host)]" : parts.options.host
        print("listening on http://\(host):\(server.port)")
        fflush(nil)
        logger.info("serving", metadata: ["store": "\(parts.options.store)", "threads": "\(parts.options.threads)"])
        parts.whenServing()

        let beside = ServiceGroup(
            services: [SessionPurger(store: store)] + responder.services + parts.app.backgroundServices,
            logger: logger)
        let stopLimit = server.configuration.shutdownGracePeriod + .seconds(5)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await beside.run() }
            let report = await withGracefulShutdownHandler {
                await server.run()
            } onGracefulShutdown: { [logger, name = parts.name] in
                logger.info("stopping")
                server.shutdown()
                StopDeadline.arm(after: stopLimit, name: name)
            }
            stopReport.withLock { $0 = report }
            await beside.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
