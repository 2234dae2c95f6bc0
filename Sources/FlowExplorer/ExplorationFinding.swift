/// Something wrong the explorer found, with the path of actions that leads there from a new
/// session.
public struct ExplorationFinding: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem.
    public enum Kind: String, Sendable, Hashable {
        /// A step, visit or deep link answered `5xx` (a flow, `adapt` or the store threw); the
        /// message says what failed, as the server logged it under the answer's reference.
        case serverError
        /// A state's top page did not render (`5xx`, or an empty page).
        case renderError
        /// A state with no way forward or back: every action leaves it as it is.
        case deadEnd
        /// A registered page that no explored path shows.
        case unreachedPage
        /// A deep-link route that no sample URL reached from any explored state (all `404`).
        case unreachedRoute
        /// A deep link that answered, but whose URL is never the top page of an explored state.
        case deepLinkTargetNeverShown
        /// The session's history, replayed, does not rebuild its state.
        case replayMismatch
        /// A tree with more nodes than the bound (a leak: pages pushed and never popped).
        case treeTooLarge
        /// A path that, repeated, grows a session by the same amount each time: the session
        /// reaches one of its `SessionLimits` (a flow that pushes without end), or a state
        /// already holds most of one (four fifths or more).
        case limitReachable
    }

    /// What kind of problem.
    public var kind: Kind
    /// What was seen.
    public var message: String
    /// The actions from a new session to where it was seen (empty: not tied to one path).
    public var path: [String]

    /// A finding.
    public init(kind: Kind, message: String, path: [String]) {
        self.kind = kind
        self.message = message
        self.path = path
    }

    public var description: String {
        let steps = path.isEmpty ? "" : "\n  path: " + path.joined(separator: "\n        → ")
        return "\(kind.rawValue): \(message)\(steps)"
    }
}
