import FlowCore

/// A session's State as the JSON API shows it (Docs/CONTRACT.md §5):
/// `{"session", "version", "top": {"node", "url", "page", "flow"}, "root": FlowNode}`, where a
/// FlowNode is `{"node", "flow", "container", "selected"?, "children", "presented"}` and a page
/// `{"node", "page", "url", "embedded"?}`. Written straight into bytes in one walk of the tree
/// (``NavigationTree/encodedState(reusing:)``), which copies the unchanged start of a long stack
/// from an earlier State of the session.
struct StateDocument {
    /// The document's JSON text.
    let bytes: [UInt8]
    /// The root flow's part of ``bytes``, with where its long stacks' pages lie: for the session's
    /// next State to copy from (see ``LoadedSession/encodedState``).
    let root: EncodedTree

    /// The State of `session`, copying from the one this instance wrote last, if kept.
    init(_ session: LoadedSession) throws(WebError) {
        try self.init(
            session: session.record.id, version: session.record.version, tree: session.tree,
            reusing: session.encodedState)
    }

    /// The State of session `session` at `version`, whose tree is `tree`, copying from `previous`.
    init(session: String, version: Int, tree: NavigationTree, reusing previous: EncodedTree? = nil)
        throws(WebError)
    {
        guard let top = tree.top, let owner = tree.owner(ofPage: top.id).flatMap({ tree.flow($0) }) else {
            throw .internalError("the session shows no page")
        }
        var bytes: [UInt8] = []
        // Ids are never reused, so `nextNodeID` only bounds the tree's size: capped, not trusted.
        bytes.reserveCapacity(256 + (previous?.bytes.count ?? 64 * min(tree.nextNodeID, 1024)))
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
        root = tree.encodedState(reusing: previous)
        bytes.append(contentsOf: root.bytes)
        bytes.append(UInt8(ascii: "}"))
        self.bytes = bytes
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
