/// How the web layer treats sessions and input.
public struct WebConfiguration: Sendable {
    /// Idle seconds before a session expires (counted from its last change).
    public var sessionTTL: Int
    /// Whether the session cookie carries `Secure`.
    public var secureCookies: Bool
    /// The directory served under `/public/` (`nil`: none); FlowServer's own files
    /// (``FlowWebDefaults/publicFiles``) answer for the names it does not have.
    public var publicDirectory: String?
    /// The most form or query fields accepted (more: `413`).
    public var maxFields: Int
    /// The secret session ids are signed with, 32 bytes or more. `nil`: the one the store keeps,
    /// when a ``FlowWebService`` serves (so every instance on one store accepts the others' ids,
    /// after a restart too); a random one for a responder made directly, whose ids then mean
    /// nothing to other instances or after a restart.
    public var sessionSecret: [UInt8]?
    /// New sessions one client address may have stored per minute, on average (`0`: no limit);
    /// over it, `429`. Sessions are stored at their first change, so this limits what a client
    /// can make the store keep, not what it can read.
    public var newSessionsPerMinute: Int
    /// New sessions one client address may have stored at once, after a quiet while.
    public var newSessionBurst: Int
    /// Addresses of reverse proxies in front of the server (IP addresses as written in a
    /// request's peer address, IPv6 without brackets): from them, the client's address is the
    /// last one in `X-Forwarded-For` that is not itself a trusted proxy. From anyone else the
    /// header is ignored.
    public var trustedProxies: Set<String>
    /// The most event streams (`GET /_events`, live tabs) one session may hold open, and all
    /// sessions together; each holds a connection, so the server's connection limits bound
    /// them too.
    public var eventStreamsPerSession: Int
    /// The most event streams open at once, all sessions together (see ``eventStreamsPerSession``).
    public var eventStreams: Int
    /// The pages' Content-Security-Policy (default ``defaultContentSecurityPolicy``); an app
    /// extends it, e.g. with `; img-src 'self' https://images.example.com`.
    public var contentSecurityPolicy: String
    /// Whether `GET /_inspector` shows a session's tree, app data and history to its browser.
    public var inspectorEnabled: Bool
    /// Whether `GET /metrics` shows the service's metrics (to anyone who can reach it: keep it
    /// behind the proxy, or switch it off).
    public var metricsEnabled: Bool
    /// Makes the app's navigation graph for `/_inspector/graph` (called once, on the first visit
    /// to that page); `nil`: the page says there is none. `FlowServerRuntime` explores the app
    /// for it (FlowExplorer), ahead, from the start.
    public var inspectorGraph: (@Sendable () async throws -> FlowGraph)?
    /// The app's steps, for the `AppStep` schema of the OpenAPI document the app serves at
    /// `/public/openapi.yaml` (called once, on the first request for it); `nil`, an empty list or
    /// a failure: FlowServer's document, which takes any step. `FlowServerRuntime` sets it to the
    /// steps the exploration of the app found its pages sending.
    public var apiSteps: (@Sendable () async throws -> [StepSignature])?
    /// How much history each session keeps (by default its last 1,000 entries, older ones folded
    /// into a snapshot) and how often it records the state, for time travel.
    public var historyRetention: HistoryRetention
    /// How large one session may grow (``SessionLimits``'s defaults: no real app reaches them).
    public var sessionLimits: SessionLimits
    /// Everything from this origin only, no plugins, no `<base>`, forms posting only here, no
    /// framing. FlowServer's pages load one script and one style sheet of their own and nothing
    /// inline, so no nonce is needed.
    public static let defaultContentSecurityPolicy =
        "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; form-action 'self'"

    /// A configuration with safe defaults: a new-session rate that no office behind one address
    /// reaches (60 a minute, bursts of 120).
    public init(
        sessionTTL: Int = 86_400, secureCookies: Bool = false, publicDirectory: String? = nil, maxFields: Int = 1000,
        sessionSecret: [UInt8]? = nil, newSessionsPerMinute: Int = 60, newSessionBurst: Int = 120,
        trustedProxies: Set<String> = [],
        eventStreamsPerSession: Int = 16, eventStreams: Int = 1000,
        contentSecurityPolicy: String = WebConfiguration.defaultContentSecurityPolicy,
        inspectorEnabled: Bool = true, metricsEnabled: Bool = true,
        historyRetention: HistoryRetention = HistoryRetention(), sessionLimits: SessionLimits = SessionLimits(),
        inspectorGraph: (@Sendable () async throws -> FlowGraph)? = nil,
        apiSteps: (@Sendable () async throws -> [StepSignature])? = nil
    ) {
        self.inspectorGraph = inspectorGraph
        self.apiSteps = apiSteps
        self.historyRetention = historyRetention
        self.sessionLimits = sessionLimits
        self.sessionTTL = sessionTTL
        self.secureCookies = secureCookies
        self.publicDirectory = publicDirectory
        self.maxFields = maxFields
        self.sessionSecret = sessionSecret
        self.newSessionsPerMinute = newSessionsPerMinute
        self.newSessionBurst = newSessionBurst
        self.trustedProxies = trustedProxies
        self.eventStreamsPerSession = eventStreamsPerSession
        self.eventStreams = eventStreams
        self.contentSecurityPolicy = contentSecurityPolicy
        self.inspectorEnabled = inspectorEnabled
        self.metricsEnabled = metricsEnabled
    }

    /// The session cookie's name: `__Host-` before it with secure cookies, which browsers then
    /// keep only when it was set over HTTPS, for the whole site, by this host alone.
    public var sessionCookieName: String { secureCookies ? "__Host-" + Self.cookieName : Self.cookieName }

    /// A new random session secret (32 bytes), for ``sessionSecret`` or for a store to keep.
    public static func newSessionSecret() -> [UInt8] { SessionIDs.randomSecret() }

    /// The session cookie's name.
    public static let cookieName = "flowserver_session"
}
