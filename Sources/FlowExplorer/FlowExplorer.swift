import FlowCore
import FlowStore
import FlowWeb
import Logging
import MicroHTTP
import MustacheTemplates

/// Explores every state an app's pages can reach, breadth-first, as a user would: from a new
/// session, in each state it follows every link and sends every form of the rendered top page
/// (with valid sample input and with empty input), visits every page in the tree (Back, a tab,
/// Close on a modal) and opens every deep-link route, up to ``ExplorationBounds``. It runs the
/// app in process, through the same responder a server uses, on sessions in memory.
///
/// Each state is checked: its top page renders, its history replays to it, its tree stays
/// within a size; at the end, every registered page and route must have been reached and every
/// deep link shown. Findings come with the path that leads to them.
///
/// ```swift
/// @Test func everyStateOfTheAppWorks() async throws {
///     let report = try await FlowExplorer(app: MoviesDemo.webApp(), templatesDirectory: "Templates").explore()
///     #expect(report.findings.isEmpty, "\(report.findings)")
///     try report.graph.dot().write(toFile: "flows.dot", atomically: true, encoding: .utf8)
/// }
/// ```
public final class FlowExplorer<Step: FlowStep>: Sendable {
    /// The app explored.
    public let app: WebApp<Step>
    /// The input the explorer cannot guess.
    public let samples: ExplorationSamples
    /// How far it goes.
    public let bounds: ExplorationBounds
    /// The app's session limits: the explorer's server refuses what they refuse, and a path
    /// that grows a session without end is reported with the limit it reaches.
    public let limits: SessionLimits
    private let store = MemorySessionStore()
    private let responder: FlowWebResponder<Step>
    private let cookieName = WebConfiguration.cookieName
    /// What the responder logged about the requests it failed.
    let failures: ServerFailures

    /// An explorer of `app` rendered with `templates`, its sessions bounded by `limits`.
    public init(
        app: WebApp<Step>, templates: TemplateLibrary, samples: ExplorationSamples = ExplorationSamples(),
        bounds: ExplorationBounds = ExplorationBounds(), limits: SessionLimits = SessionLimits()
    ) {
        self.app = app
        self.samples = samples
        self.bounds = bounds
        self.limits = limits
        let failures = ServerFailures()
        self.failures = failures
        var logger = Logger(label: "FlowExplorer") { label in failures.recording(to: Logger(label: label).handler) }
        logger.logLevel = .error
        responder = FlowWebResponder(
            app: app, store: store, templates: templates,
            configuration: WebConfiguration(
                newSessionsPerMinute: 0, inspectorEnabled: false, metricsEnabled: false, sessionLimits: limits),
            logger: logger)
    }

    /// An explorer of `app` with the templates in `templatesDirectory` over FlowServer's
    /// defaults, its sessions bounded by `limits`.
    ///
    /// - Throws: the templates' `TemplateError`, or `WebAppError` for a page without a template.
    public convenience init(
        app: WebApp<Step>, templatesDirectory: String, samples: ExplorationSamples = ExplorationSamples(),
        bounds: ExplorationBounds = ExplorationBounds(), limits: SessionLimits = SessionLimits()
    ) throws {
        let templates = try FlowWebDefaults.templates(directory: templatesDirectory)
        try app.checkTemplates(templates, loadedFrom: templatesDirectory)
        self.init(app: app, templates: templates, samples: samples, bounds: bounds, limits: limits)
    }

    /// Explores the app and reports what it found.
    ///
    /// - Throws: ``ExplorationError`` when the app cannot even start a session.
    public func explore() async throws -> ExplorationReport {
        let clock = ContinuousClock()
        let started = clock.now
        var run = ExplorationRun(explorer: self)
        try await run.explore()
        return run.report(duration: clock.now - started)
    }

    // MARK: - Sessions

    /// A session at `snapshot`'s state under a new id: for the initial state, one the app
    /// minted (`GET /`, not stored); for a stored one, a copy stored under an id of the same form
    /// (the server checks an id's signature only while nothing is stored under it).
    func branch(_ snapshot: SessionSnapshot) async throws -> String {
        guard case .stored(var record, let history) = snapshot else {
            let answer = await responder.respond(to: try Request(method: .get, target: "/"))
            guard let id = Self.cookie(cookieName, in: answer) else {
                throw ExplorationError("GET / set no session cookie (status \(answer.status.code))")
            }
            return id
        }
        record.id = Self.copyID(of: record.id)
        try store.create(record, entries: history)
        return record.id
    }

    /// A new id of the same length and alphabet as `id`.
    private static func copyID(of id: String) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<id.count).map { _ in digits[Int.random(in: 0..<16)] })
    }

    /// Session `id`'s state; the session is forgotten unless `keeping`.
    func take(_ id: String, keeping: Bool = false) async throws -> SessionSnapshot {
        defer { if !keeping { forget(id) } }
        guard let record = try store.load(id) else { return .initial }
        return .stored(record, try store.history(id, after: 0, limit: 1_000_000))
    }

    /// Deletes session `id` (a copy made for one action).
    func forget(_ id: String) { try? store.delete(id) }

    /// Session `id`'s tree as stored and as replayed, when it differs.
    func replayMismatch(_ id: String) async throws -> String? {
        guard let trees = try await responder.storedAndReplayed(id), trees.stored != trees.replayed else { return nil }
        return "stored:\n\(trees.stored.outline)\nreplayed:\n\(trees.replayed.outline)"
    }

    /// The answer to `method target` with session `id`'s cookie (and `form`, url-encoded).
    func send(_ method: HTTPMethod, _ target: String, session id: String, form: [(String, String)]? = nil)
        async throws -> Response
    {
        var headers: HTTPHeaders = ["Cookie": "\(cookieName)=\(id)"]
        var body: [UInt8] = []
        if let form {
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = Array(FormEncoding.form(form).utf8)
        }
        return await responder.respond(to: try Request(method: method, target: target, headers: headers, body: body))
    }

    private static func cookie(_ name: String, in response: Response) -> String? {
        for field in response.headers where field.name.lowercased() == "set-cookie" {
            let pair = field.value.split(separator: ";", maxSplits: 1).first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return String(parts[1]) }
        }
        return nil
    }
}

/// A session's state as the explorer keeps it between actions.
enum SessionSnapshot: Sendable {
    /// The app's initial state (a session not stored).
    case initial
    /// A stored session and its history.
    case stored(SessionRecord, [HistoryRecord])
}

/// The explorer could not run at all.
public struct ExplorationError: Error, Sendable, CustomStringConvertible {
    /// Why.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
