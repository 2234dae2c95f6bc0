extension CodingUserInfoKey {
    /// Where decoders find the ``FlowRegistry`` that knows the flow and page types by name:
    /// `decoder.userInfo[.flowRegistry] = app.registry`.
    public static let flowRegistry = CodingUserInfoKey(rawValue: "FlowCore.FlowRegistry")!
}

extension Decoder {
    var flowRegistry: FlowRegistry {
        get throws(NavigationError) {
            guard let registry = userInfo[.flowRegistry] as? FlowRegistry else {
                throw .invalidTree("decode trees with their app's registry in the decoder's userInfo[.flowRegistry]")
            }
            return registry
        }
    }
}

/// Encoded as `{"nextNode", "root", "dismissed"}`; decoding validates every invariant. The app
/// data is not part of it: a decoded tree has a new session's app data.
extension NavigationTree: Codable {
    private enum CodingKeys: String, CodingKey { case nextNode, root, dismissed }

    public init(from decoder: any Decoder) throws {
        let registry = try decoder.flowRegistry
        let container = try decoder.container(keyedBy: CodingKeys.self)
        root = try container.decode(FlowNode.self, forKey: .root)
        nextNodeID = try container.decode(Int.self, forKey: .nextNode)
        dismissedPages = try container.decodeIfPresent([DismissedPage].self, forKey: .dismissed) ?? []
        appData = registry.initialAppData
        try validate(registry)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(nextNodeID, forKey: .nextNode)
        try container.encode(root, forKey: .root)
        if !dismissedPages.isEmpty { try container.encode(dismissedPages, forKey: .dismissed) }
    }
}

/// Encoded as `{"node", "flow", "state", "children", "selected"?, "presented"?}`; read without
/// `"state"` too (an empty state, as the JSON form writes it).
extension FlowNode: Codable {
    private enum CodingKeys: String, CodingKey { case node, flow, state, children, selected, presented }

    public init(from decoder: any Decoder) throws {
        let registry = try decoder.flowRegistry
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .flow)
        guard let type = registry.flowTypes[name] else { throw NavigationError.unknownFlow(name) }
        func decodeState<F: FlowState>(_ type: F.Type) throws -> AnyFlow {
            // The JSON form leaves an empty state out.
            guard container.contains(.state) else {
                return AnyFlow(try CompactJSONDecoder().decode(F.self, from: NavigationTree.empty))
            }
            return AnyFlow(try container.decode(F.self, forKey: .state))
        }
        id = try container.decode(NodeID.self, forKey: .node)
        flow = try decodeState(type)
        children = NodeList(try container.decode([TreeNode].self, forKey: .children))
        selected = try container.decodeIfPresent(Int.self, forKey: .selected) ?? 0
        presented = try container.decodeIfPresent(TreeNode.self, forKey: .presented)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .node)
        try container.encode(flow.name, forKey: .flow)
        try container.encode(flow.base, forKey: .state)
        try container.encode(Array(children), forKey: .children)
        if flow.container == .tabs { try container.encode(selected, forKey: .selected) }
        try container.encodeIfPresent(presented, forKey: .presented)
    }

}

/// Encoded as `{"node", "page", "params", "embedded"?, "allowNotPresented"?, "allowDismissed"?}`;
/// read without `"params"` too.
extension PageNode: Codable {
    private enum CodingKeys: String, CodingKey { case node, page, params, embedded, allowNotPresented, allowDismissed }

    public init(from decoder: any Decoder) throws {
        let registry = try decoder.flowRegistry
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .page)
        guard let type = registry.pageTypes[name] else { throw NavigationError.unknownPage(name) }
        func decodeParams<P: Page>(_ type: P.Type) throws -> AnyPage {
            guard container.contains(.params) else {
                return AnyPage(try CompactJSONDecoder().decode(P.self, from: NavigationTree.empty))
            }
            return AnyPage(try container.decode(P.self, forKey: .params))
        }
        self.init(
            id: try container.decode(NodeID.self, forKey: .node), page: try decodeParams(type),
            allowStepWhenNotPresented: try container.decodeIfPresent(Bool.self, forKey: .allowNotPresented) ?? false,
            allowStepWhenDismissed: try container.decodeIfPresent(Bool.self, forKey: .allowDismissed) ?? false,
            embedded: try container.decodeIfPresent([FlowNode].self, forKey: .embedded) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .node)
        try container.encode(page.name, forKey: .page)
        try container.encode(page.base, forKey: .params)
        if !embedded.isEmpty { try container.encode(embedded, forKey: .embedded) }
        if allowStepWhenNotPresented { try container.encode(true, forKey: .allowNotPresented) }
        if allowStepWhenDismissed { try container.encode(true, forKey: .allowDismissed) }
    }
}

/// A page (it has a `"page"` key) or a flow.
extension TreeNode: Codable {
    private enum Discriminator: String, CodingKey { case page }

    public init(from decoder: any Decoder) throws {
        if try decoder.container(keyedBy: Discriminator.self).contains(.page) {
            self = .page(try PageNode(from: decoder))
        } else {
            self = .flow(try FlowNode(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .page(let page): try page.encode(to: encoder)
        case .flow(let flow): try flow.encode(to: encoder)
        }
    }
}
