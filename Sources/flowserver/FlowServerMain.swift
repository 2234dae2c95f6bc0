import ArgumentParser
import Dispatch
import FlowStore
import FlowStorePostgres
import FlowStoreSQLite
import FlowWeb
import Logging
import MicroHTTP
import MoviesDemo
import MustacheTemplates

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Entry point: parses flags (exit 2 on a bad one), loads the templates and opens the store
/// (exit 1 when they cannot be used), serves the Movies demo, prints
/// `listening on http://HOST:PORT`, and stops gracefully on SIGTERM or SIGINT: with status 0 when
/// every request finished, else 1, and within the grace period and five seconds more.
@main
enum FlowServerMain {
    static func main() async {
        let command: FlowServerCommand
        do {
            let arguments = try EnvironmentArguments.merged(
                environmentVariables(), with: Array(CommandLine.arguments.dropFirst()))
            command = try FlowServerCommand.parse(arguments)
        } catch let error as EnvironmentArguments.Failure {
            fail("flowserver: \(error)", status: 2)
        } catch {
            if FlowServerCommand.exitCode(for: error) == .success {
                print(FlowServerCommand.fullMessage(for: error))
                exit(0)
            }
            let message = FlowServerCommand.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            fail("flowserver: \(message) (see flowserver --help)", status: 2)
        }

        let level = command.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "flowserver")

        let templates: TemplateLibrary
        do {
            templates = try TemplateLibrary(directory: command.templates)
        } catch {
            fail("flowserver: cannot load the templates: \(error)", status: 1)
        }
        let store: any SessionStore
        switch command.store {
        case .memory:
            store = MemorySessionStore()
        case .sqlite(let path):
            do { store = try SQLiteSessionStore(path: path, logger: Logger(label: "flowserver.sqlite")) } catch { fail("flowserver: \(error)", status: 1) }
        case .postgres(let url):
            // The pool logs every failed connection attempt; warnings and up only.
            var storeLogger = Logger(label: "flowserver.postgres")
            storeLogger.logLevel = max(level, .warning)
            do { store = try await PostgresSessionStore.connect(url: url, logger: storeLogger) } catch { fail("flowserver: \(error)", status: 1) }
        }
        let app: WebApp<DemoStep>
        do { app = try MoviesDemo.webApp() } catch { fail("flowserver: the demo cannot start: \(error)", status: 1) }
        let secret: [UInt8]
        if let given = command.sessionSecret {
            secret = Array(given.utf8)
        } else {
            do { secret = try await store.sessionSecret(proposing: WebConfiguration.newSessionSecret()) } catch {
                fail("flowserver: cannot read the session secret from the store: \(error)", status: 1)
            }
        }
        let responder = FlowWebResponder(
            app: app, store: store, templates: templates,
            configuration: WebConfiguration(
                sessionTTL: command.sessionTTL, secureCookies: command.secureCookies, publicDirectory: command.publicDirectory,
                sessionSecret: secret, newSessionsPerMinute: command.newSessionsPerMinute, newSessionBurst: command.newSessionBurst,
                trustedProxies: Set(command.trustedProxies), eventStreamsPerSession: command.maxEventStreamsPerSession,
                eventStreams: command.maxEventStreams),
            logger: Logger(label: "flowserver.web"))
        let server = HTTPServer(
            configuration: .init(
                host: command.host, port: command.port, threads: command.threads, maxBodySize: command.maxBody,
                connectionTimeout: command.idleTimeout, readTimeout: command.readTimeout, connectionLimit: command.maxConnections,
                connectionsPerClient: command.maxConnectionsPerClient, unlimitedClients: command.trustedProxies),
            responder: responder,
            logger: Logger(label: "flowserver.http"))
        // Watch signals before announcing the address: a SIGTERM right after it must stop us.
        let stopLimit = server.configuration.shutdownGracePeriod + .seconds(5)
        TerminationSignals.watch { number in
            logger.info("stopping on signal \(number)")
            server.shutdown()
            StopDeadline.arm(after: stopLimit)
        }
        do {
            try server.start()
        } catch {
            fail("flowserver: \(error)", status: 1)
        }
        let displayHost = command.host.contains(":") ? "[\(command.host)]" : command.host
        print("listening on http://\(displayHost):\(server.port)")
        fflush(nil)
        logger.info("serving", metadata: ["store": "\(command.store)", "threads": "\(command.threads)"])

        let purging = Task { await SessionPurger(store: store).run() }
        let report = await server.run()
        purging.cancel()
        guard report.isClean else {
            // Each request was logged with its route by the server.
            logger.error("stopped, but \(report.unfinishedRequests.count + report.stuckThreads.count) requests did not finish")
            exit(1)
        }
        logger.info("stopped")
    }

    private static func fail(_ message: String, status: Int32) -> Never {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(status)
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
