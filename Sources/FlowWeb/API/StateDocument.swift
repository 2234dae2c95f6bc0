import FlowCore

/// A session's State as the JSON API shows it (Docs/CONTRACT.md §5):
/// `{"session", "version", "top": {"node", "url", "page", "flow"}, "root": FlowNode}`, where a
/// FlowNode is `{"node", "flow", "container", "selected"?, "children", "presented"}` and a page
/// `{"node", "page", "url", "embedded"?}`. Written straight into bytes in one walk of the tree.
struct StateDocument {
    /// The document's JSON text.
    let bytes: [UInt8]

    init(_ session: LoadedSession) throws(WebError) {
        try self.init(session: session.record.id, version: session.record.version, tree: session.tree)
    }

    /// The State of session `session` at `version`, whose tree is `tree`.
    init(session: String, version: Int, tree: NavigationTree) throws(WebError) {
        guard let top = tree.top, let owner = tree.owner(ofPage: top.id).flatMap({ tree.flow($0) }) else {
            throw .internalError("the session shows no page")
        }
        var bytes: [UInt8] = []
        // Ids are never reused, so `nextNodeID` only bounds the tree's size: capped, not trusted.
        bytes.reserveCapacity(256 + 64 * min(tree.nextNodeID, 1024))
        Self.append(#"{"session":"#, to: &bytes)
        JSONWriter.writeString(session, into: &bytes)
        Self.append(#","version":"#, to: &bytes)
        JSONWriter.writeInteger(version, into: &bytes)
        Self.append(#","top":{"node":"#, to: &bytes)
        JSONWriter.writeInteger(top.id.rawValue, into: &bytes)
        Self.append(#","url":"#, to: &bytes)
        JSONWriter.writeString(top.url, into: &bytes)
        Self.append(#","page":"#, to: &bytes)
        JSONWriter.writeString(top.page.name, into: &bytes)
        Self.append(#","flow":"#, to: &bytes)
        JSONWriter.writeString(owner.flow.name, into: &bytes)
        Self.append(#"},"root":"#, to: &bytes)
        Self.write(tree.root, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
        self.bytes = bytes
    }

    private static func write(_ flow: FlowNode, into bytes: inout [UInt8]) {
        append(#"{"node":"#, to: &bytes)
        JSONWriter.writeInteger(flow.id.rawValue, into: &bytes)
        append(#","flow":"#, to: &bytes)
        JSONWriter.writeString(flow.flow.name, into: &bytes)
        append(#","container":"#, to: &bytes)
        JSONWriter.writeString(flow.container.rawValue, into: &bytes)
        if flow.container == .tabs {
            append(#","selected":"#, to: &bytes)
            JSONWriter.writeInteger(flow.selected, into: &bytes)
        }
        append(#","children":["#, to: &bytes)
        for index in flow.children.indices {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(flow.children[index], into: &bytes)
        }
        append(#"],"presented":"#, to: &bytes)
        if let presented = flow.presented { write(presented, into: &bytes) } else { append("null", to: &bytes) }
        bytes.append(UInt8(ascii: "}"))
    }

    private static func write(_ node: TreeNode, into bytes: inout [UInt8]) {
        switch node {
        case .flow(let flow): write(flow, into: &bytes)
        case .page(let page):
            bytes.append(contentsOf: page.stateHead)
            if !page.embedded.isEmpty {
                append(#","embedded":["#, to: &bytes)
                for index in page.embedded.indices {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(page.embedded[index], into: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
