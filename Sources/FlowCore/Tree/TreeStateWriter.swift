/// Writes a tree's root flow as the API's State shows it (Docs/CONTRACT.md §5) straight into
/// bytes: a flow `{"node", "flow", "container", "selected"?, "children", "presented"}`, a page
/// `{"node", "page", "url", "embedded"?}`, each page's start copied as it was made
/// (``PageNode/stateHead``); given an earlier State encoding, the pages a long stack still starts
/// with are copied from it in one piece, as a commit copies them (see ``EncodedTree``).
struct TreeStateWriter: StackCopyingWriter {
    typealias Failure = Never
    var bytes: [UInt8] = []
    var copiedPages = 0
    var layouts: [NodeID: EncodedTree.Layout]? = [:]
    let previous: EncodedTree?

    /// A writer that copies what `previous`, when a State encoding, recorded.
    init(previous: EncodedTree?) {
        self.previous = previous?.form == .state ? previous : nil
        // The tree a step changed is about as long as the one before: one allocation, no growth.
        if let reused = self.previous { bytes.reserveCapacity(reused.bytes.count + 1024) }
    }

    mutating func copied(_ pages: Int) {}

    /// Writes `flow` and what it holds.
    mutating func write(_ flow: FlowNode) {
        append(#"{"node":"#)
        JSONWriter.writeInteger(flow.id.rawValue, into: &bytes)
        append(#","flow":"#)
        JSONWriter.writeString(flow.flow.name, into: &bytes)
        append(#","container":"#)
        JSONWriter.writeString(flow.container.rawValue, into: &bytes)
        if flow.container == .tabs {
            append(#","selected":"#)
            JSONWriter.writeInteger(flow.selected, into: &bytes)
        }
        append(#","children":["#)
        if flow.children.count >= EncodedTree.Layout.minimumChildren {
            writeRecordingLayout(flow)
        } else {
            for index in flow.children.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(flow.children[index])
            }
        }
        append(#"],"presented":"#)
        if let presented = flow.presented { write(presented) } else { append("null") }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ node: TreeNode) {
        switch node {
        case .flow(let flow): write(flow)
        case .page(let page):
            bytes.append(contentsOf: page.stateHead)
            if !page.embedded.isEmpty {
                append(#","embedded":["#)
                for index in page.embedded.indices {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(page.embedded[index])
                }
                bytes.append(UInt8(ascii: "]"))
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

extension NavigationTree {
    /// The tree's root flow as the API's State shows it, with the layout of its long stacks; the
    /// pages a long stack starts with that `previous` (an earlier State encoding, of any tree)
    /// wrote as they are are copied from it.
    public func encodedState(reusing previous: EncodedTree?) -> EncodedTree {
        var writer = TreeStateWriter(previous: previous)
        writer.write(root)
        return EncodedTree(
            bytes: writer.bytes, form: .state, size: TreeSize(nodes: 0, deepestStack: 0),
            copiedPages: writer.copiedPages, tree: self, layouts: writer.layouts ?? [:])
    }
}
