import ArgumentParser
import Logging
import MicroHTTP

/// The `flowserver` command line: the flags of CONTRACT.md §7, each also readable from an
/// environment variable `FLOWSERVER_<NAME>` (see ``EnvironmentArguments``).
struct FlowServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowserver",
        abstract: "Serves FlowServer's Movies demo: coordinator flows as server-rendered web pages.",
        discussion: """
            Every flag can also be set by an environment variable FLOWSERVER_<NAME>, e.g. \
            FLOWSERVER_PORT=9000 or FLOWSERVER_SECURE_COOKIES=1; a flag on the command line wins.
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free port.")
    var port = 8080

    @Option(help: "Session store: memory, sqlite:PATH or postgres://user:pass@host:port/db.")
    var store = StoreLocation.defaultLocation

    @Option(help: "Directory of the Mustache templates.")
    var templates = "Templates"

    @Option(name: .customLong("public"), help: "Directory of the static files served under /public.")
    var publicDirectory = "Public"

    @Option(name: .customLong("session-ttl"), help: "Idle seconds before a session expires.")
    var sessionTTL = 86_400

    @Option(help: "Server threads (default: the number of cores).")
    var threads = HTTPServer.Configuration.defaultThreads

    @Option(name: .customLong("max-body"), help: "Request body limit in bytes.")
    var maxBody = 1_048_576

    @Option(name: .customLong("max-connections"), help: "The most connections served at once.")
    var maxConnections = 1024

    @Option(
        name: .customLong("max-connections-per-client"),
        help: "The most connections one client address may hold; 0: no limit (behind a reverse proxy, where every connection comes from the proxy).")
    var maxConnectionsPerClient = 64

    @Option(
        name: .customLong("read-timeout"),
        help: "Seconds within which a request's headers and body must arrive (a deadline; slow clients are closed).")
    var readTimeout = 10

    @Option(name: .customLong("idle-timeout"), help: "Seconds a kept-alive connection may stay idle between requests.")
    var idleTimeout = 30

    @Flag(name: .customLong("secure-cookies"), help: "Add Secure to the session cookie (serve over HTTPS).")
    var secureCookies = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = Logger.Level.info

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535, got \(port)") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1, got \(threads)") }
        guard maxBody >= 0 else { throw ValidationError("--max-body must not be negative, got \(maxBody)") }
        guard sessionTTL >= 1 else { throw ValidationError("--session-ttl must be at least 1 second, got \(sessionTTL)") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1, got \(maxConnections)") }
        guard maxConnectionsPerClient >= 0 else {
            throw ValidationError("--max-connections-per-client must not be negative (0: no limit), got \(maxConnectionsPerClient)")
        }
        guard readTimeout >= 1, idleTimeout >= 1 else {
            throw ValidationError("--read-timeout and --idle-timeout must be at least 1 second, got \(readTimeout) and \(idleTimeout)")
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
