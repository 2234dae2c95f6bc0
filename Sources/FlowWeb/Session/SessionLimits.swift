import FlowCore
import FlowStore
import MicroHTTP

/// How large one session may grow, so that no client — a script that pushes the same step
/// thousands of times included — makes a session whose every step costs more than a person's.
/// A step or visit that would take a session past a limit is refused: the session stays as it
/// was, its history records the navigation as `rejected` with the limit named, the browser gets a
/// page saying so and the API a problem of type ``SessionLimits/problemType`` (Docs/CONTRACT.md
/// §5). A change that shrinks a session, or leaves it as large, is never refused, so a session
/// stored under higher limits can still go Back.
///
/// The defaults are far above what a real app reaches: a person's session holds tens of nodes.
public struct SessionLimits: Sendable, Hashable {
    /// The most pages and flows in a session's tree (default 500).
    public var nodes: Int
    /// The most pages or flows on one stack (default 100).
    public var stackDepth: Int
    /// The most bytes of the tree as stored, its JSON (default 256 KiB).
    public var stateBytes: Int
    /// The most bytes of the app data as stored, its JSON (default 64 KiB).
    public var appDataBytes: Int

    /// Limits with the defaults no real app reaches.
    public init(nodes: Int = 500, stackDepth: Int = 100, stateBytes: Int = 262_144, appDataBytes: Int = 65_536) {
        self.nodes = nodes
        self.stackDepth = stackDepth
        self.stateBytes = stateBytes
        self.appDataBytes = appDataBytes
    }

    /// The value of `limit`.
    public subscript(limit: SessionLimit) -> Int {
        switch limit {
        case .nodes: nodes
        case .stackDepth: stackDepth
        case .stateBytes: stateBytes
        case .appDataBytes: appDataBytes
        }
    }

    /// The `type` of the problem that answers an API request refused by a limit.
    public static let problemType = "tag:flowserver.dev,2026:session-limit"

    /// The limit that the change from `before` to `commit` crosses, if any: a measure over its
    /// limit that the change made larger. The tree of `before` is measured only then.
    func crossing<Step>(before: LoadedSession, commit: SessionCommit<Step>) -> LimitCrossing? {
        let new = commit.treeSize
        let measures: [(SessionLimit, new: Int, old: () -> Int)] = [
            (.nodes, new.nodes, { before.tree.size.nodes }),
            (.stackDepth, new.deepestStack, { before.tree.size.deepestStack }),
            (.stateBytes, commit.record.tree.count, { before.record.tree.count }),
            (.appDataBytes, commit.record.appData.count, { before.record.appData.count }),
        ]
        return measures.first { $0.new > self[$0.0] && $0.new > $0.old() }.map {
            LimitCrossing(limit: $0.0, maximum: self[$0.0], reached: $0.new)
        }
    }
}

/// One of ``SessionLimits``' limits, by the name that history entries, problems, logs and
/// metrics give it.
public enum SessionLimit: String, Sendable, Hashable, CaseIterable {
    /// ``SessionLimits/nodes``.
    case nodes
    /// ``SessionLimits/stackDepth``.
    case stackDepth = "stack-depth"
    /// ``SessionLimits/stateBytes``.
    case stateBytes = "state-bytes"
    /// ``SessionLimits/appDataBytes``.
    case appDataBytes = "app-data-bytes"

    /// What the limit counts, in words.
    var measure: String {
        switch self {
        case .nodes: "pages and flows"
        case .stackDepth: "pages on one stack"
        case .stateBytes: "bytes of navigation state"
        case .appDataBytes: "bytes of app data"
        }
    }
}

/// A change refused because it would take a session past one of its limits.
struct LimitCrossing: Sendable, Hashable {
    /// The limit crossed.
    var limit: SessionLimit
    /// Its value.
    var maximum: Int
    /// What the change would have made the session.
    var reached: Int

    /// The history entry's reason, e.g. `limit nodes: 501 pages and flows, at most 500`.
    var reason: String { "limit \(limit.rawValue): \(reached) \(limit.measure), at most \(maximum)" }

    /// The answer: `409` with a problem of type ``SessionLimits/problemType`` naming the limit.
    var error: WebError {
        var error = WebError(
            HTTPStatus(409), "Session limit reached",
            "This session would hold \(reached) \(limit.measure), more than its limit of \(maximum), so nothing was changed. Go back to where you were, or start again from the first page."
        )
        error.type = SessionLimits.problemType
        error.members = [("limit", "\"\(limit.rawValue)\""), ("maximum", "\(maximum)")]
        return error
    }
}
