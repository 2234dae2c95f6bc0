/// The tree's own structure written and read straight as ``JSON``: Codable is used only for
/// what apps define (flow states and page params). Same shape as the `Codable` form, except that
/// an empty state or params (`{}`, most of them) is left out; either form reads what the other
/// wrote. This path is the one stores use on every request.
extension NavigationTree {
    /// The tree as compact JSON (what stores keep).
    public func jsonBytes() throws -> [UInt8] {
        var writer = TreeJSONWriter()
        try writer.write(self)
        return writer.bytes
    }

    /// A tree read back from ``jsonBytes()`` (or any JSON encoding of it), validated, with the
    /// app data read back from ``appDataJSON()`` (empty: a new session's).
    ///
    /// - Throws: ``NavigationError`` for unknown flows or pages, a malformed shape and broken
    ///   invariants; `DecodingError` for malformed JSON or states that do not decode.
    public init(json: [UInt8], appData: [UInt8] = [], registry: FlowRegistry) throws {
        let value: JSON
        do { value = try JSON(parsing: json) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
        }
        try self.init(json: value, appData: appData, registry: registry)
    }

    /// A tree read back from its JSON as a value (one a migration changed, say), validated, with
    /// the app data read back from ``appDataJSON()`` (empty: a new session's).
    ///
    /// - Throws: ``NavigationError`` for unknown flows or pages, a malformed shape and broken
    ///   invariants; `DecodingError` for states that do not decode.
    public init(json value: JSON, appData: [UInt8] = [], registry: FlowRegistry) throws {
        guard case .object = value, case .int(let next)? = value["nextNode"], let root = value["root"] else {
            throw NavigationError.invalidTree("a tree is {\"nextNode\", \"root\", \"dismissed\"?}")
        }
        self.root = try Self.flow(from: root, registry)
        nextNodeID = next
        dismissedPages = []
        self.appData = try registry.appData(json: appData)
        if case .array(let items)? = value["dismissed"] {
            dismissedPages = try items.map { try CompactJSONDecoder().decode(DismissedPage.self, from: $0) }
        }
        try validate(registry)
    }

    /// An empty state or params, left out of the JSON form.
    static let empty = JSON.object([])

    private static func flow(from value: JSON, _ registry: FlowRegistry) throws -> FlowNode {
        guard case .int(let id)? = value["node"], case .string(let name)? = value["flow"],
            case .array(let children)? = value["children"]
        else { throw NavigationError.invalidTree("a flow node is {\"node\", \"flow\", \"state\"?, \"children\"}") }
        let state = value["state"] ?? Self.empty
        guard let type = registry.flowTypes[name] else { throw NavigationError.unknownFlow(name) }
        func decode<F: FlowState>(_ type: F.Type) throws -> AnyFlow {
            AnyFlow(try CompactJSONDecoder().decode(F.self, from: state), stateJSON: state)
        }
        var flow = FlowNode(id: NodeID(rawValue: id), flow: try decode(type))
        flow.children = NodeList(try children.map { try node(from: $0, registry) })
        if case .int(let selected)? = value["selected"] { flow.selected = selected }
        if let presented = value["presented"], presented != .null {
            flow.presented = try node(from: presented, registry)
        }
        return flow
    }

    private static func node(from value: JSON, _ registry: FlowRegistry) throws -> TreeNode {
        guard case .string(let name)? = value["page"] else { return .flow(try flow(from: value, registry)) }
        guard case .int(let id)? = value["node"] else {
            throw NavigationError.invalidTree("a page node is {\"node\", \"page\", \"params\"?}")
        }
        let params = value["params"] ?? Self.empty
        guard let type = registry.pageTypes[name] else { throw NavigationError.unknownPage(name) }
        func decode<P: Page>(_ type: P.Type) throws -> AnyPage {
            AnyPage(try CompactJSONDecoder().decode(P.self, from: params))
        }
        var embedded: [FlowNode] = []
        if case .array(let items)? = value["embedded"] { embedded = try items.map { try flow(from: $0, registry) } }
        return .page(
            PageNode(
                id: NodeID(rawValue: id), page: try decode(type),
                allowStepWhenNotPresented: value["allowNotPresented"] == .bool(true),
                allowStepWhenDismissed: value["allowDismissed"] == .bool(true), embedded: embedded, params: params))
    }
}
