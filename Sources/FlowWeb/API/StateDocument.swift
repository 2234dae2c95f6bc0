import FlowCore

/// A session's State as the JSON API shows it (Docs/CONTRACT.md §5):
/// `{"session", "version", "top": {"node", "url", "page", "flow"}, "root": FlowNode}`, where a
/// FlowNode is `{"node", "flow", "container", "selected"?, "children", "presented"}` and a page
/// `{"node", "page", "url", "embedded"?}`. Built as a ``JSON`` value in one walk of the tree.
struct StateDocument: Encodable {
    /// The document.
    let json: JSON

    init(_ session: LoadedSession) throws(WebError) {
        try self.init(session: session.record.id, version: session.record.version, tree: session.tree)
    }

    /// The State of session `session` at `version`, whose tree is `tree`.
    init(session: String, version: Int, tree: NavigationTree) throws(WebError) {
        guard let top = tree.top, let owner = tree.owner(ofPage: top.id).flatMap({ tree.flow($0) }) else {
            throw .internalError("the session shows no page")
        }
        json = .object([
            ("session", .string(session)), ("version", .int(version)),
            (
                "top",
                .object([
                    ("node", .int(top.id.rawValue)), ("url", .string(top.url)), ("page", .string(top.page.name)),
                    ("flow", .string(owner.flow.name)),
                ])
            ),
            ("root", Self.json(tree.root)),
        ])
    }

    func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }

    private static func json(_ flow: FlowNode) -> JSON {
        var fields: [(key: String, value: JSON)] = [
            ("node", .int(flow.id.rawValue)), ("flow", .string(flow.flow.name)),
            ("container", .string(flow.container.rawValue)),
        ]
        if flow.container == .tabs { fields.append(("selected", .int(flow.selected))) }
        fields.append(("children", .array(flow.children.map(json))))
        fields.append(("presented", flow.presented.map(json) ?? .null))
        return .object(fields)
    }

    private static func json(_ node: TreeNode) -> JSON {
        switch node {
        case .flow(let flow): return json(flow)
        case .page(let page):
            var fields: [(key: String, value: JSON)] = [
                ("node", .int(page.id.rawValue)), ("page", .string(page.page.name)), ("url", .string(page.url)),
            ]
            if !page.embedded.isEmpty { fields.append(("embedded", .array(page.embedded.map(json)))) }
            return .object(fields)
        }
    }
}
