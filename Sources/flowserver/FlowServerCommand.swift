import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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

    @Option(
        name: .customLong("session-secret"),
        help: "Secret that session ids are signed with, 32 characters or more (default: a random one kept in the store, shared by every instance using it).")
    var sessionSecret: String?

    @Option(
        name: .customLong("new-sessions-per-minute"),
        help: "New sessions one client address may have stored per minute, on average; more get 429. 0: no limit.")
    var newSessionsPerMinute = 60

    @Option(name: .customLong("new-session-burst"), help: "New sessions one client address may have stored at once, after a quiet while.")
    var newSessionBurst = 120

    @Option(
        name: .customLong("trusted-proxy"),
        help: "IP address of a reverse proxy in front of the server (repeat, or separate by commas): the limits per client then count the address it forwards in X-Forwarded-For, and its own connections are not limited.")
    var trustedProxy: [String] = []

    /// The trusted proxies, from every `--trusted-proxy` and the commas within them.
    var trustedProxies: [String] {
        trustedProxy.flatMap { $0.split(separator: ",") }.map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
    }

    @Option(
        name: .customLong("max-event-streams"),
        help: "The most live-tab event streams (GET /_events) open at once; each holds a connection, so --max-connections bounds them too.")
    var maxEventStreams = 1000

    @Option(name: .customLong("max-event-streams-per-session"), help: "The most event streams one session may hold open (its open tabs).")
    var maxEventStreamsPerSession = 16

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
        if let sessionSecret, sessionSecret.utf8.count < 32 {
            throw ValidationError("--session-secret must be at least 32 characters long, got \(sessionSecret.utf8.count)")
        }
        guard newSessionsPerMinute >= 0, newSessionBurst >= 1 else {
            throw ValidationError(
                "--new-sessions-per-minute must not be negative (0: no limit) and --new-session-burst at least 1, got \(newSessionsPerMinute) and \(newSessionBurst)")
        }
        if let bad = trustedProxies.first(where: { !Self.isIPAddress($0) }) {
            throw ValidationError("--trusted-proxy takes IP addresses (10.0.0.1, ::1), got \(bad)")
        }
        guard maxEventStreams >= 0, maxEventStreamsPerSession >= 0 else {
            throw ValidationError("--max-event-streams and --max-event-streams-per-session must not be negative (0: none)")
        }
        guard readTimeout >= 1, idleTimeout >= 1 else {
            throw ValidationError("--read-timeout and --idle-timeout must be at least 1 second, got \(readTimeout) and \(idleTimeout)")
        }
    }
}

extension FlowServerCommand {
    /// Whether `text` is an IPv4 or IPv6 address.
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
