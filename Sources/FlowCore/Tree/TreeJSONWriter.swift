/// Writes a tree's JSON form (``NavigationTree/jsonBytes()``) straight into bytes, counting its
/// nodes and its deepest stack on the way. A page's unchanging start (``PageNode/jsonHead``) is
/// copied, not encoded again; given the encoding of an earlier tree, the pages a long stack
/// still starts with are copied from it in one piece (see ``EncodedTree``).
struct TreeJSONWriter: StackCopyingWriter {
    typealias Failure = any Error
    var bytes: [UInt8] = []
    /// The size of the trees written.
    private(set) var size = TreeSize(nodes: 0, deepestStack: 0)
    var copiedPages = 0
    var layouts: [NodeID: EncodedTree.Layout]?
    let previous: EncodedTree?

    /// A writer; with `keepingLayouts`, one that records where each long stack's children are
    /// (for the next commit to copy), reusing what `previous` recorded.
    init(keepingLayouts: Bool = false, previous: EncodedTree? = nil) {
        layouts = keepingLayouts ? [:] : nil
        self.previous = keepingLayouts && previous?.form == .stored ? previous : nil
        // The tree a step changed is about as long as the one before: one allocation, no growth.
        if let reused = self.previous { bytes.reserveCapacity(reused.bytes.count + 1024) }
    }

    mutating func copied(_ pages: Int) {
        size.nodes += pages
    }

    /// Writes `tree`: `{"nextNode", "root", "dismissed"?}`.
    mutating func write(_ tree: NavigationTree) throws {
        append(#"{"nextNode":"#)
        JSONWriter.writeInteger(tree.nextNodeID, into: &bytes)
        append(#","root":"#)
        try write(tree.root)
        if !tree.dismissedPages.isEmpty {
            append(#","dismissed":"#)
            JSONWriter.write(try CompactJSONEncoder().encodeValue(tree.dismissedPages), into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `{"node", "flow", "state"?, "children", "selected"?, "presented"?}`; an empty state is
    /// left out.
    private mutating func write(_ flow: FlowNode) throws {
        size.nodes += 1
        size.deepestStack = max(size.deepestStack, flow.children.count)
        append(#"{"node":"#)
        JSONWriter.writeInteger(flow.id.rawValue, into: &bytes)
        append(#","flow":"#)
        JSONWriter.writeString(flow.flow.name, into: &bytes)
        let state = try flow.flow.stateJSON ?? CompactJSONEncoder().encodeValue(flow.flow.base)
        if state != NavigationTree.empty {
            append(#","state":"#)
            JSONWriter.write(state, into: &bytes)
        }
        append(#","children":["#)
        if layouts != nil, flow.children.count >= EncodedTree.Layout.minimumChildren {
            try writeRecordingLayout(flow)
        } else {
            for (index, child) in flow.children.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(child)
            }
        }
        bytes.append(UInt8(ascii: "]"))
        if flow.container == .tabs {
            append(#","selected":"#)
            JSONWriter.writeInteger(flow.selected, into: &bytes)
        }
        if let presented = flow.presented {
            append(#","presented":"#)
            switch presented {
            case .flow(let flow): try write(flow)
            case .page(let page): try write(page)
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ node: TreeNode) throws {
        switch node {
        case .flow(let flow): try write(flow)
        case .page(let page): try write(page)
        }
    }

    /// `{"node", "page", "params"?, "embedded"?, "allowNotPresented"?, "allowDismissed"?}`.
    private mutating func write(_ page: PageNode) throws {
        size.nodes += 1
        if let head = page.jsonHead {
            bytes.append(contentsOf: head)
        } else {
            bytes.append(contentsOf: try Self.head(of: page.id, page.page, params: nil))
        }
        if !page.embedded.isEmpty {
            append(#","embedded":["#)
            for (index, flow) in page.embedded.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(flow)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if page.allowStepWhenNotPresented { append(#","allowNotPresented":true"#) }
        if page.allowStepWhenDismissed { append(#","allowDismissed":true"#) }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `{"node":…,"page":…` and `,"params":…` unless empty: from `params` when the page was
    /// read from them, else encoded from `page`.
    static func head(of id: NodeID, _ page: AnyPage, params: JSON?) throws -> [UInt8] {
        var head = Array(#"{"node":"#.utf8)
        JSONWriter.writeInteger(id.rawValue, into: &head)
        head.append(contentsOf: #","page":"#.utf8)
        JSONWriter.writeString(page.name, into: &head)
        let params = try params ?? CompactJSONEncoder().encodeValue(page.base)
        if params != NavigationTree.empty {
            head.append(contentsOf: #","params":"#.utf8)
            JSONWriter.write(params, into: &head)
        }
        return head
    }
}
