import ArgumentParser
import FlowWeb
import Logging
import MicroHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line every FlowServer app gets (Docs/CONTRACT.md §7): where to listen, the store, the
/// templates and files, limits, cookies, logging. Each flag can also be set by an environment
/// variable `FLOWSERVER_<NAME>` (a flag on the command line wins). An app's own flags come beside
/// these (``FlowServerRuntime/run(_:options:environmentOptions:environmentFlags:exploration:app:)``).
public struct ServerOptions: ParsableArguments, Sendable {
    /// The options' defaults.
    public init() {}

    /// `--host`: address to listen on.
    @Option(help: "Address to listen on.")
    public var host = "127.0.0.1"

    /// `--port`: port to listen on; 0 picks a free port.
    @Option(parsing: .unconditional, help: "Port to listen on; 0 picks a free port.")
    public var port = 8080

    /// `--store`: session store: memory, sqlite:PATH or postgres://user:pass@host:port/db (only
    /// the default's directory, `.data/`, is created when missing).
    @Option(help: "Session store (only the default's directory, .data/, is created when missing).")
    public var store = StoreLocation.defaultLocation

    /// `--templates`: directory of the app's Mustache templates (a `layout.mustache` or `error.mustache` there replaces FlowServer's).
    @Option(
        help:
            "Directory of the app's Mustache templates (a layout.mustache or error.mustache there replaces FlowServer's)."
    )
    public var templates = "Templates"

    /// `--public`: directory of the app's static files, served under /public beside FlowServer's own (`site.css`, `site.js`, `openapi.yaml`; a file of the same name replaces one).
    @Option(
        name: .customLong("public"),
        help:
            "Directory of the app's static files, served under /public beside FlowServer's own (site.css, site.js, openapi.yaml; a file of the same name replaces one)."
    )
    public var publicDirectory = ServerOptions.defaultPublicDirectory

    /// `--public`'s default, `Public`.
    public static let defaultPublicDirectory = "Public"

    /// `--session-ttl`: idle seconds before a session expires.
    @Option(name: .customLong("session-ttl"), parsing: .unconditional, help: "Idle seconds before a session expires.")
    public var sessionTTL = 86_400

    /// `--history-limit`: the most history entries a session keeps (`0`: all).
    @Option(
        name: .customLong("history-limit"), parsing: .unconditional,
        help: "History entries each session keeps; older ones are folded into a snapshot (0: keep all).")
    public var historyLimit = 1000

    /// `--max-session-nodes`, `--max-stack-depth`, `--max-session-state`, `--max-app-data`: how
    /// large one session may grow.
    @OptionGroup public var limits: SessionLimitOptions

    /// `--threads`: server threads (default: one per core).
    @Option(parsing: .unconditional, help: "Server threads; the default is one per core.")
    public var threads = HTTPServer.Configuration.defaultThreads

    /// `--max-body`: request body limit in bytes.
    @Option(name: .customLong("max-body"), parsing: .unconditional, help: "Request body limit in bytes.")
    public var maxBody = 1_048_576

    /// `--max-connections`: the most connections served at once.
    @Option(name: .customLong("max-connections"), parsing: .unconditional, help: "The most connections served at once.")
    public var maxConnections = 1024

    /// `--max-connections-per-client`: the most connections one client address may hold; 0: no limit (behind a reverse proxy, where every connection comes from the proxy).
    @Option(
        name: .customLong("max-connections-per-client"), parsing: .unconditional,
        help:
            "The most connections one client address may hold; 0: no limit (behind a reverse proxy, where every connection comes from the proxy)."
    )
    public var maxConnectionsPerClient = 64

    /// `--read-timeout`: seconds within which a request's headers and body must arrive (a deadline; slow clients are closed).
    @Option(
        name: .customLong("read-timeout"), parsing: .unconditional,
        help: "Seconds within which a request's headers and body must arrive (a deadline; slow clients are closed).")
    public var readTimeout = 10

    /// `--idle-timeout`: seconds a kept-alive connection may stay idle between requests.
    @Option(
        name: .customLong("idle-timeout"), parsing: .unconditional,
        help: "Seconds a kept-alive connection may stay idle between requests.")
    public var idleTimeout = 30

    /// `--session-secret`: secret that session ids are signed with, 32 characters or more (default: a random one kept in the store, shared by every instance using it).
    @Option(
        name: .customLong("session-secret"),
        help:
            "Secret that session ids are signed with, 32 characters or more (default: a random one kept in the store, shared by every instance using it)."
    )
    public var sessionSecret: String?

    /// `--new-sessions-per-minute`: new sessions one client address may have stored per minute, on average; more get 429. 0: no limit.
    @Option(
        name: .customLong("new-sessions-per-minute"), parsing: .unconditional,
        help: "New sessions one client address may have stored per minute, on average; more get 429. 0: no limit.")
    public var newSessionsPerMinute = 60

    /// `--new-session-burst`: new sessions one client address may have stored at once, after a quiet while.
    @Option(
        name: .customLong("new-session-burst"), parsing: .unconditional,
        help: "New sessions one client address may have stored at once, after a quiet while.")
    public var newSessionBurst = 120

    /// `--trusted-proxy`: iP address of a reverse proxy in front of the server (repeat, or separate by commas): the limits per client then count the address it forwards in X-Forwarded-For, and its own connections are not limited.
    @Option(
        name: .customLong("trusted-proxy"),
        help:
            "IP address of a reverse proxy in front of the server (repeat, or separate by commas): the limits per client then count the address it forwards in X-Forwarded-For, and its own connections are not limited."
    )
    public var trustedProxy: [String] = []

    /// The trusted proxies, from every `--trusted-proxy` and the commas within them.
    public var trustedProxies: [String] {
        trustedProxy.flatMap { $0.split(separator: ",") }.map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
    }

    /// `--max-event-streams`: the most live-tab event streams (GET /_events) open at once; each holds a connection, so --max-connections bounds them too.
    @Option(
        name: .customLong("max-event-streams"), parsing: .unconditional,
        help:
            "The most live-tab event streams (GET /_events) open at once; each holds a connection, so --max-connections bounds them too."
    )
    public var maxEventStreams = 1000

    /// `--max-event-streams-per-session`: the most event streams one session may hold open (its open tabs).
    @Option(
        name: .customLong("max-event-streams-per-session"), parsing: .unconditional,
        help: "The most event streams one session may hold open (its open tabs).")
    public var maxEventStreamsPerSession = 16

    /// `--secure-cookies`: add Secure to the session cookie (serve over HTTPS).
    @Flag(name: .customLong("secure-cookies"), help: "Add Secure to the session cookie (serve over HTTPS).")
    public var secureCookies = false

    /// `--inspector` / `--no-inspector`: whether `GET /_inspector` shows a session's tree, app data
    /// and history to its browser (on by default).
    @Flag(
        name: .customLong("inspector"), inversion: .prefixedNo,
        help: "Serve /_inspector, where a browser sees its session's tree, app data and history.")
    public var inspector = true

    /// `--metrics` / `--no-metrics`: whether `GET /metrics` shows the service's metrics (on by default).
    @Flag(name: .customLong("metrics"), inversion: .prefixedNo, help: "Serve the Prometheus metrics at /metrics.")
    public var metrics = true

    /// `--log-level`: trace, debug, info, notice, warning, error or critical.
    @Option(name: .customLong("log-level"), help: "The least important messages logged.")
    public var logLevel = Logger.Level.info

    /// Refuses values out of range, with the flag and what it takes.
    public func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535, got \(port)") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1, got \(threads)") }
        guard maxBody >= 0 else { throw ValidationError("--max-body must not be negative, got \(maxBody)") }
        guard sessionTTL >= 1 else {
            throw ValidationError("--session-ttl must be at least 1 second, got \(sessionTTL)")
        }
        guard historyLimit >= 0 else {
            throw ValidationError("--history-limit must not be negative (0: keep all), got \(historyLimit)")
        }
        guard maxConnections >= 1 else {
            throw ValidationError("--max-connections must be at least 1, got \(maxConnections)")
        }
        guard maxConnectionsPerClient >= 0 else {
            throw ValidationError(
                "--max-connections-per-client must not be negative (0: no limit), got \(maxConnectionsPerClient)")
        }
        if let sessionSecret, sessionSecret.utf8.count < 32 {
            throw ValidationError(
                "--session-secret must be at least 32 characters long, got \(sessionSecret.utf8.count)")
        }
        guard newSessionsPerMinute >= 0, newSessionBurst >= 1 else {
            throw ValidationError(
                "--new-sessions-per-minute must not be negative (0: no limit) and --new-session-burst at least 1, got \(newSessionsPerMinute) and \(newSessionBurst)"
            )
        }
        if let bad = trustedProxies.first(where: { !Self.isIPAddress($0) }) {
            throw ValidationError("--trusted-proxy takes IP addresses (10.0.0.1, ::1), got \(bad)")
        }
        guard maxEventStreams >= 0, maxEventStreamsPerSession >= 0 else {
            throw ValidationError(
                "--max-event-streams and --max-event-streams-per-session must not be negative (0: none)")
        }
        guard readTimeout >= 1, idleTimeout >= 1 else {
            throw ValidationError(
                "--read-timeout and --idle-timeout must be at least 1 second, got \(readTimeout) and \(idleTimeout)")
        }
    }
}

extension ServerOptions {
    /// Whether `text` is an IPv4 or IPv6 address.
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
