import FlowCore

/// A session's State as the JSON API shows it (Docs/CONTRACT.md §5):
/// `{"session", "version", "top": {"node", "url", "page", "flow"}, "root": FlowNode}`.
struct StateDocument: Encodable {
    struct Top: Encodable {
        var node: Int
        var url: String
        var page: String
        var flow: String
    }

    var session: String
    var version: Int
    var top: Top
    var root: FlowDocument

    init(_ session: LoadedSession) throws(WebError) {
        try self.init(session: session.record.id, version: session.record.version, tree: session.tree)
    }

    /// The State of session `session` at `version`, whose tree is `tree`.
    init(session: String, version: Int, tree: NavigationTree) throws(WebError) {
        guard let top = tree.top, let owner = tree.owner(ofPage: top.id).flatMap({ tree.flow($0) }) else {
            throw .internalError("the session shows no page")
        }
        self.session = session
        self.version = version
        self.top = Top(node: top.id.rawValue, url: top.url, page: top.page.name, flow: owner.flow.name)
        root = FlowDocument(tree.root)
    }
}

/// `{"node", "flow", "container", "selected"?, "children", "presented"}`.
struct FlowDocument: Encodable {
    var node: Int
    var flow: String
    var container: String
    var selected: Int?
    var children: [NodeDocument]
    var presented: NodeDocument?

    init(_ flow: FlowNode) {
        node = flow.id.rawValue
        self.flow = flow.flow.name
        container = flow.container.rawValue
        selected = flow.container == .tabs ? flow.selected : nil
        children = flow.children.map(NodeDocument.init)
        presented = flow.presented.map(NodeDocument.init)
    }

    private enum CodingKeys: String, CodingKey { case node, flow, container, selected, children, presented }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(node, forKey: .node)
        try container.encode(flow, forKey: .flow)
        try container.encode(self.container, forKey: .container)
        try container.encodeIfPresent(selected, forKey: .selected)
        try container.encode(children, forKey: .children)
        if let presented {
            try container.encode(presented, forKey: .presented)
        } else {
            try container.encodeNil(forKey: .presented)
        }
    }
}

/// A flow, or a page `{"node", "page", "url"}` (with `"embedded"` flows when it has some).
indirect enum NodeDocument: Encodable {
    case flow(FlowDocument)
    case page(node: Int, page: String, url: String, embedded: [FlowDocument])

    init(_ node: TreeNode) {
        switch node {
        case .flow(let flow): self = .flow(FlowDocument(flow))
        case .page(let page):
            self = .page(
                node: page.id.rawValue, page: page.page.name, url: page.url,
                embedded: page.embedded.map(FlowDocument.init))
        }
    }

    private enum CodingKeys: String, CodingKey { case node, page, url, embedded }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .flow(let flow):
            try flow.encode(to: encoder)
        case .page(let node, let page, let url, let embedded):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(node, forKey: .node)
            try container.encode(page, forKey: .page)
            try container.encode(url, forKey: .url)
            if !embedded.isEmpty { try container.encode(embedded, forKey: .embedded) }
        }
    }
}
