import ArgumentParser
import FlowCore
@_exported import FlowExplorer
import FlowStore
import FlowStoreSQLite
import FlowWeb
import Logging
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a FlowWeb app as a server process, the way `flowserver` runs the Movies demo: the whole
/// command line of Docs/CONTRACT.md §7 (flags and `FLOWSERVER_*` variables, `--help`), the memory, SQLite
/// and PostgreSQL stores, logging, the session secret, signals and graceful stop, purging of
/// expired sessions, exit statuses and one-line errors. Everything that runs in the background —
/// the store's services, the server, the purger, live tabs, the app's `WebApp.backgroundServices`
/// — runs in one swift-service-lifecycle `ServiceGroup`, which starts it, stops it gracefully on
/// `SIGTERM`/`SIGINT`, and stops the rest when one part fails.
///
/// ```swift
/// @main
/// enum CheckoutMain {
///     static func main() async {
///         await FlowServerRuntime.run(.init(name: "checkout", abstract: "Serves the checkout.")) { _ in try CheckoutApp.webApp() }
///     }
/// }
/// ```
///
/// Exit statuses: 2 for a bad flag or variable, 1 when the templates, the store or the app cannot
/// be used (or the server cannot listen), and after a stop 0 when every request finished, else 1.
public enum FlowServerRuntime {
    /// What `--help` says about an app's command.
    public struct Command: Sendable {
        /// The command's name, as `--help` and error messages show it.
        public var name: String
        /// One line on what the command serves.
        public var abstract: String
        /// The drivers of the stores that live in a database server which `--store` may name
        /// (none by default: memory and SQLite need none).
        public var stores: [StoreDriver]

        /// A command description.
        public init(name: String, abstract: String, stores: [StoreDriver] = []) {
            self.name = name
            self.abstract = abstract
            self.stores = stores
        }
    }

    /// Runs the app that `makeApp` makes, with FlowServer's command line; returns only by exiting.
    /// `<command> explore` explores the app instead (see `FlowExplorer`), with `exploration`'s
    /// samples; `<command> sessions check|migrate` reads the stored sessions with this build (a
    /// check before a deploy).
    public static func run<Step: FlowStep>(
        _ command: Command, exploration: ExplorationSamples = ExplorationSamples(),
        app makeApp: @Sendable (ServerOptions) throws -> WebApp<Step>
    ) async -> Never {
        await run(command, options: NoAppOptions.self, exploration: exploration) { server, _ in try makeApp(server) }
    }

    /// Runs the app that `makeApp` makes, with FlowServer's command line and the app's own options
    /// (`AppOptions`, parsed beside the server's; `environmentOptions` and `environmentFlags` name
    /// those of its flags that `FLOWSERVER_<NAME>` variables may set too).
    public static func run<Step: FlowStep, AppOptions: ParsableArguments>(
        _ command: Command, options: AppOptions.Type, environmentOptions: [String] = [],
        environmentFlags: [String] = [], exploration: ExplorationSamples = ExplorationSamples(),
        app makeApp: @Sendable (ServerOptions, AppOptions) throws -> WebApp<Step>
    ) async -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "explore" {
            await explore(command, arguments: Array(arguments.dropFirst()), samples: exploration) {
                AppCommandDescription.current = command
                let defaults = try AppCommand<AppOptions>.parse([])
                return try makeApp(defaults.server, defaults.app)
            }
        }
        if arguments.first == "sessions" {
            await sessions(command, arguments: Array(arguments.dropFirst()), environment: environmentVariables()) {
                AppCommandDescription.current = command
                let defaults = try AppCommand<AppOptions>.parse([])
                return try makeApp(defaults.server, defaults.app)
            }
        }
        let parsed = parse(
            command, AppOptions.self, environmentOptions: environmentOptions, environmentFlags: environmentFlags)
        let options = parsed.server
        let level = options.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: command.name)
        let fail = { (message: String) -> Never in stop(printing: "\(command.name): \(message)", status: 1) }

        let templates: TemplateLibrary
        do { templates = try FlowWebDefaults.templates(directory: options.templates) } catch {
            fail("cannot load the templates: \(error)")
        }
        let app: WebApp<Step>
        do { app = try makeApp(options, parsed.app) } catch { fail("the app cannot start: \(error)") }
        do { try app.checkTemplates(templates, loadedFrom: options.templates) } catch {
            fail("the app cannot start: \(error)")
        }
        let store: any SessionStore
        do { store = try openStore(options.store, level: level, for: command) } catch {
            fail(cannotOpen(error))
        }
        // An app without files of its own needs no Public/; a directory named but missing is a mistake.
        if options.publicDirectory != ServerOptions.defaultPublicDirectory, !isDirectory(options.publicDirectory) {
            logger.warning(
                "--public \(options.publicDirectory) is not a directory: /public serves FlowServer's default files only"
            )
        }
        // `/_inspector/graph` and the steps of `/public/openapi.yaml` come from an exploration of
        // an app of its own (its services apart from the served app's: an explored step must not
        // place a real order), ahead, in the background, from the moment the server serves (under
        // a second of CPU for the demo on the release build), so their first request finds them made.
        var explored: WebApp<Step>?
        if options.inspector {
            do { explored = try makeApp(options, parsed.app) } catch { fail("the app cannot start: \(error)") }
        }
        let ahead = explored.map { explored in
            ExplorationAhead {
                let start = ContinuousClock.now
                let report = try await FlowExplorer(app: explored, templates: templates, samples: exploration).explore()
                let elapsed = (ContinuousClock.now - start).components
                logger.info(
                    "navigation graph explored ahead",
                    metadata: [
                        "pages": "\(report.graph.nodes.count)", "edges": "\(report.graph.edges.count)",
                        "steps": "\(report.steps.count)",
                        "milliseconds": "\(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000)",
                    ])
                return report
            }
        }
        let graph = ahead.map { ahead in { @Sendable () async throws -> FlowGraph in try await ahead.report.graph } }
        let steps = ahead.map { ahead in
            { @Sendable () async throws -> [StepSignature] in try await ahead.report.steps }
        }
        var configuration = webConfiguration(options)
        configuration.inspectorGraph = graph
        configuration.apiSteps = steps
        let serverConfiguration = serverConfiguration(options)
        let server = FlowWebService(
            app: app, store: store, templates: templates, configuration: configuration,
            server: serverConfiguration, logger: logger
        ) { port in
            let host = options.host.contains(":") ? "[\(options.host)]" : options.host
            print("listening on http://\(host):\(port)")
            fflush(nil)
            logger.info("serving", metadata: ["store": "\(options.store)", "threads": "\(options.threads)"])
            ahead?.start()
        }
        // One group runs the server with everything that works beside it (the store's services
        // first, stopped last), and stops it on SIGTERM or SIGINT.
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(
                        service: DeadlinedStop(
                            service: server, limit: serverConfiguration.shutdownGracePeriod + .seconds(5),
                            name: command.name,
                            logger: logger),
                        successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let failure as FlowWebServiceError {
            fail("\(failure)")
        } catch {
            fail("stopped: \(error)")
        }
        guard let report = server.report else { fail("stopped before it served") }
        guard report.isClean else {
            // Each request was logged with its route by the server.
            logger.error(
                "stopped, but \(report.unfinishedRequests.count + report.stuckThreads.count) requests did not finish")
            exit(1)
        }
        logger.info("stopped")
        exit(0)
    }

    /// The command line and the environment, parsed; `--help` printed (exit 0) or a bad flag
    /// reported (exit 2) here.
    private static func parse<AppOptions: ParsableArguments>(
        _ command: Command, _: AppOptions.Type, environmentOptions: [String], environmentFlags: [String]
    ) -> AppCommand<AppOptions> {
        AppCommandDescription.current = command
        do {
            let arguments = try EnvironmentArguments.merged(
                environmentVariables(), with: Array(CommandLine.arguments.dropFirst()),
                appOptions: environmentOptions, appFlags: environmentFlags)
            return try AppCommand<AppOptions>.parse(arguments)
        } catch let error as EnvironmentArguments.Failure {
            stop(printing: "\(command.name): \(error) (see \(command.name) --help)", status: 2)
        } catch {
            if AppCommand<AppOptions>.exitCode(for: error) == .success {
                print(AppCommand<AppOptions>.fullMessage(for: error))
                exit(0)
            }
            let message = oneLine(AppCommand<AppOptions>.message(for: error))
            stop(printing: "\(command.name): \(message) (see \(command.name) --help)", status: 2)
        }
    }

    /// Subcommand `name` of `command` (`explore`, `sessions`) parsed from `arguments` (after its
    /// name): `--help` printed (exit 0), or a bad flag said in one line with where to look (exit 2).
    static func parseSubcommand<Subcommand: ParsableCommand>(
        _: Subcommand.Type, _ arguments: [String], named name: String, of command: Command
    ) -> Subcommand {
        AppCommandDescription.current = command
        do { return try Subcommand.parse(arguments) } catch {
            if Subcommand.exitCode(for: error) == .success {
                print(Subcommand.fullMessage(for: error))
                exit(0)
            }
            stop(
                printing:
                    "\(command.name) \(name): \(oneLine(Subcommand.message(for: error))) (see \(command.name) \(name) --help)",
                status: 2)
        }
    }

    /// ArgumentParser's message on one line: a list of choices (`- trace` lines) joined with
    /// commas, any other further line dropped (the usage it repeats).
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingPrefix(while: { $0 == " " }) }
        guard let first = lines.first else { return message }
        let choices = lines.dropFirst().filter { $0.hasPrefix("- ") }.map { $0.dropFirst(2) }
        return choices.isEmpty ? String(first) : "\(first) \(choices.joined(separator: ", "))"
    }

    /// The store `location` names, not prepared yet (see ``SessionStore/prepare()``): PostgreSQL
    /// connects once its service runs, through the driver `command` was given.
    static func openStore(_ location: StoreLocation, level: Logger.Level, for command: Command) throws
        -> any SessionStore
    {
        switch location {
        case .memory:
            return MemorySessionStore()
        case .sqlite(let path):
            // Only the default's directory (.data/) is made; any other must exist (a typo must
            // not leave a directory at the root).
            return try SQLiteSessionStore(
                path: path, createsDirectory: location == .defaultLocation,
                logger: Logger(label: "\(command.name).sqlite"))
        case .postgres(let url):
            guard let driver = command.stores.first(where: { $0.scheme == "postgres" }) else {
                throw MissingStoreDriver(command: command.name, scheme: "postgres")
            }
            // A server's client logs every failed connection attempt; warnings and up only.
            var storeLogger = Logger(label: "\(command.name).postgres")
            storeLogger.logLevel = max(level, .warning)
            return try driver.open(url, storeLogger)
        }
    }

    /// Why a store cannot be opened, in a line: a missing driver says what to add, any other
    /// reason lists the forms `--store` takes.
    static func cannotOpen(_ error: any Error) -> String {
        error is MissingStoreDriver ? "\(error)" : "\(error) (\(StoreLocation.forms))"
    }

    /// The web layer's configuration; the session secret is `--session-secret`'s, or else (`nil`)
    /// the one the store keeps.
    private static func webConfiguration(_ options: ServerOptions) -> WebConfiguration {
        WebConfiguration(
            sessionTTL: options.sessionTTL, secureCookies: options.secureCookies,
            publicDirectory: options.publicDirectory,
            sessionSecret: options.sessionSecret.map { Array($0.utf8) },
            newSessionsPerMinute: options.newSessionsPerMinute,
            newSessionBurst: options.newSessionBurst,
            trustedProxies: Set(options.trustedProxies), eventStreamsPerSession: options.maxEventStreamsPerSession,
            eventStreams: options.maxEventStreams, inspectorEnabled: options.inspector, metricsEnabled: options.metrics,
            historyRetention: HistoryRetention(limit: options.historyLimit), sessionLimits: options.limits.sessionLimits
        )
    }

    private static func serverConfiguration(_ options: ServerOptions) -> HTTPServer.Configuration {
        .init(
            host: options.host, port: options.port, threads: options.threads, maxBodySize: options.maxBody,
            connectionTimeout: options.idleTimeout, readTimeout: options.readTimeout,
            connectionLimit: options.maxConnections,
            connectionsPerClient: options.maxConnectionsPerClient, unlimitedClients: options.trustedProxies)
    }

    /// Ends the process with `status` after writing `message` to standard error.
    static func stop(printing message: String, status: Int32) -> Never {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(status)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func environmentVariables() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}

/// An app without options of its own.
public struct NoAppOptions: ParsableArguments, Sendable {
    /// No options.
    public init() {}
}

/// The description of the command being parsed (`--help` reads it): set once, before parsing.
enum AppCommandDescription {
    nonisolated(unsafe) static var current = FlowServerRuntime.Command(name: "flowserver", abstract: "")
}

/// The whole command line of an app: the server's options and the app's own.
struct AppCommand<AppOptions: ParsableArguments>: ParsableCommand {
    static var configuration: CommandConfiguration {
        let name = AppCommandDescription.current.name
        return CommandConfiguration(
            commandName: name,
            abstract: AppCommandDescription.current.abstract,
            discussion: """
                Every server flag can also be set by an environment variable FLOWSERVER_<NAME>, e.g. \
                FLOWSERVER_PORT=9000 or FLOWSERVER_SECURE_COOKIES=1; a flag on the command line wins.

                SUBCOMMANDS (each with its own --help):
                  \(name) explore    Explores the app's pages and steps; draws the graph.
                  \(name) sessions   Checks, migrates or restores the stored sessions.
                """)
    }

    @OptionGroup var server: ServerOptions
    @OptionGroup var app: AppOptions
}
