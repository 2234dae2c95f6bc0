import FlowCore
import FlowStore
import Logging
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle
import Synchronization

/// An app served over HTTP as one swift-service-lifecycle `Service`: the whole assembly, which
/// `FlowServerRuntime`, FlowTesting's `TestServer` and an app that runs its own `ServiceGroup`
/// all use. It runs the store's services, gets the store ready (connects, migrates), reads the
/// session secret the store keeps (unless the configuration gives one), makes the responder,
/// listens, and serves, with the purger of expired sessions, the responder's services (live
/// tabs) and the app's ``WebApp/backgroundServices`` working beside it. On graceful shutdown the
/// server stops first (it stops accepting; requests in flight finish), then what works beside
/// it, then the store's services; one of those that fails stops the server.
///
/// ```swift
/// let web = FlowWebService(
///     app: try ShopApp.webApp(), store: try SQLiteSessionStore(path: "shop.sqlite"), templates: templates,
///     server: .init(host: "0.0.0.0", port: 8080))
/// try await ServiceGroup(services: [web, queueConsumer], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// ```
public final class FlowWebService<Step: FlowStep>: Service {
    private let app: WebApp<Step>
    private let store: any SessionStore
    private let templates: TemplateLibrary
    private let configuration: WebConfiguration
    private let serverConfiguration: HTTPServer.Configuration
    private let logger: Logger
    private let whenServing: @Sendable (_ port: Int) -> Void
    private let stopReport = Mutex<StopReport?>(nil)

    /// A service that serves `app` with sessions in `store`, rendering with `templates`.
    ///
    /// - Parameters:
    ///   - app: the app.
    ///   - store: where its sessions are kept; the service prepares it.
    ///   - templates: the templates it renders with (see `FlowWebDefaults.templates(directory:options:)`).
    ///   - configuration: the web layer's; a `nil` ``WebConfiguration/sessionSecret`` means the
    ///     secret the store keeps (so every instance on one store accepts the others' ids).
    ///   - server: where it listens and how (threads, limits, timeouts).
    ///   - logger: the service's; the responder logs as `<label>.web`, the server as
    ///     `<label>.http`, at the same level.
    ///   - whenServing: called once the server listens, with its port: what is worth doing only
    ///     for a server that serves.
    public init(
        app: WebApp<Step>, store: any SessionStore, templates: TemplateLibrary,
        configuration: WebConfiguration = WebConfiguration(), server: HTTPServer.Configuration,
        logger: Logger = Logger(label: "FlowWeb"), whenServing: @escaping @Sendable (_ port: Int) -> Void = { _ in }
    ) {
        self.app = app
        self.store = store
        self.templates = templates
        self.configuration = configuration
        serverConfiguration = server
        self.logger = logger
        self.whenServing = whenServing
    }

    /// How the server stopped (`nil` until it has).
    public var report: StopReport? { stopReport.withLock { $0 } }

    /// Serves until graceful shutdown (see the type's description).
    ///
    /// - Throws: ``FlowWebServiceError`` when the store cannot be made ready, its secret cannot be
    ///   read or the server cannot listen; the error of a service that failed.
    public func run() async throws {
        let storeServices = ServiceGroup(services: store.services, logger: logger)
        // Groups of their own, run apart from this task: a nested group would hear this
        // service's graceful shutdown and stop at once, not after the server.
        let storeRun = Task.detached { try await storeServices.run() }
        let server: HTTPServer
        let beside: ServiceGroup
        do {
            (server, beside) = try await withTaskCancellationHandler {
                try await listen()
            } onCancel: {
                storeRun.cancel()
            }
        } catch {
            await storeServices.triggerGracefulShutdown()
            _ = await storeRun.result
            throw error
        }
        let besideRun = Task.detached { try await beside.run() }
        whenServing(server.port)
        let report = await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { watchers in
                for run in [storeRun, besideRun] {
                    watchers.addTask { if case .failure = await run.result { server.shutdown() } }
                }
                let report = await withGracefulShutdownHandler {
                    await server.run()
                } onGracefulShutdown: {
                    server.shutdown()
                }
                await beside.triggerGracefulShutdown()
                _ = await besideRun.result
                await storeServices.triggerGracefulShutdown()
                _ = await storeRun.result
                return report
            }
        } onCancel: {
            server.shutdown()
            besideRun.cancel()
            storeRun.cancel()
        }
        stopReport.withLock { $0 = report }
        try await besideRun.value
        try await storeRun.value
    }

    /// The store made ready, the responder made, the server listening; the services that work
    /// beside it, not started.
    private func listen() async throws(FlowWebServiceError) -> (HTTPServer, ServiceGroup) {
        do { try await store.prepare() } catch { throw FlowWebServiceError(description: "\(error)") }
        var configuration = configuration
        if configuration.sessionSecret == nil {
            do {
                configuration.sessionSecret = try await store.sessionSecret(
                    proposing: WebConfiguration.newSessionSecret())
            } catch {
                throw FlowWebServiceError(description: "cannot read the session secret from the store: \(error)")
            }
        }
        let responder = FlowWebResponder(
            app: app, store: store, templates: templates, configuration: configuration, logger: logger(".web"))
        let server = HTTPServer(configuration: serverConfiguration, responder: responder, logger: logger(".http"))
        do { try server.start() } catch { throw FlowWebServiceError(description: "\(error)") }
        let beside = ServiceGroup(
            services: [SessionPurger(store: store)] + responder.services + app.backgroundServices, logger: logger)
        return (server, beside)
    }

    /// A logger labelled after this service's, at its level.
    private func logger(_ suffix: String) -> Logger {
        var logger = Logger(label: self.logger.label + suffix)
        logger.logLevel = self.logger.logLevel
        return logger
    }
}

/// Why a ``FlowWebService`` could not start serving, in a line for a log or standard error.
public struct FlowWebServiceError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with what to do when there is something.
    public var description: String
}
