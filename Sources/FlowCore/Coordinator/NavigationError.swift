/// Why a navigation, a tree or an app definition was refused. The message says what to fix.
public struct NavigationError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case unknownFlow(String)
        case unknownPage(String)
        case unknownNode(NodeID)
        case duplicateName(String)
        case invalidContribution(flow: String, reason: String)
        case navigationLoop(limit: Int, flow: String)
        case noTopPage(flow: String)
        case invalidTree(String)
    }

    private let kind: Kind

    static func unknownFlow(_ name: String) -> Self { Self(kind: .unknownFlow(name)) }
    static func unknownPage(_ name: String) -> Self { Self(kind: .unknownPage(name)) }
    static func unknownNode(_ id: NodeID) -> Self { Self(kind: .unknownNode(id)) }
    static func duplicateName(_ name: String) -> Self { Self(kind: .duplicateName(name)) }
    static func invalidContribution(flow: String, _ reason: String) -> Self {
        Self(kind: .invalidContribution(flow: flow, reason: reason))
    }
    static func navigationLoop(limit: Int, flow: String) -> Self {
        Self(kind: .navigationLoop(limit: limit, flow: flow))
    }
    static func noTopPage(flow: String) -> Self { Self(kind: .noTopPage(flow: flow)) }
    static func invalidTree(_ reason: String) -> Self { Self(kind: .invalidTree(reason)) }

    /// Whether the error is about a node id that is not in the tree.
    public var isUnknownNode: Bool {
        if case .unknownNode = kind { return true }
        return false
    }

    /// The name of the unregistered flow type this error is about (a stored tree naming a flow
    /// the app no longer has), if it is about one.
    public var unknownFlowName: String? {
        if case .unknownFlow(let name) = kind { return name }
        return nil
    }

    /// The name of the unregistered page type this error is about, if it is about one.
    public var unknownPageName: String? {
        if case .unknownPage(let name) = kind { return name }
        return nil
    }

    /// Whether the error is about a tree that breaks an invariant (or cannot be decoded).
    public var isInvalidTree: Bool {
        switch kind {
        case .invalidTree, .unknownFlow, .unknownPage: true
        default: false
        }
    }

    public var description: String {
        switch kind {
        case .unknownFlow(let name):
            "unknown flow \"\(name)\": register its type in the FlowApp's flows"
        case .unknownPage(let name):
            "unknown page \"\(name)\": register its type in the FlowApp's pages"
        case .unknownNode(let id):
            "no node \(id) in the tree"
        case .duplicateName(let name):
            "two types are registered as \"\(name)\": give each flow and page type its own name"
        case .invalidContribution(let flow, let reason):
            "flow \"\(flow)\" contributed something it cannot hold: \(reason)"
        case .navigationLoop(let limit, let flow):
            "more than \(limit) navigations for one step (last in flow \"\(flow)\"): flows forward steps to each other in a loop"
        case .noTopPage(let flow):
            "the tree shows no page after navigating: make flow \"\(flow)\" contribute a page for its initial steps"
        case .invalidTree(let reason):
            "invalid tree: \(reason)"
        }
    }
}
