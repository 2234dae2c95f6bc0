/// A tree's JSON form as a commit wrote it (``NavigationTree/encoded(reusing:)``), with where
/// each long stack's children lie in it, so that the next commit of the changed tree copies the
/// pages a stack still starts with in one piece instead of writing each again: a push or a pop
/// on a stack of a thousand pages writes one page.
///
/// A stack's children are known by the identity of each page's unchanging parts (see
/// ``PageNode``) and its flags; the encoding keeps its tree, so no page it names is freed and no
/// other page can take its identity. Only pages without embedded flows are copied; a flow child
/// ends the copied run.
public final class EncodedTree: Sendable {
    /// Which of a tree's JSON forms an encoding is: only an encoding of the same form is reused.
    public enum Form: Sendable {
        /// What stores keep (``NavigationTree/encoded(reusing:)``).
        case stored
        /// The API's State of the tree's root flow (``NavigationTree/encodedState(reusing:)``).
        case state
    }

    /// Where one flow's children lie in ``bytes``.
    struct Layout: Sendable {
        /// A flow with fewer children is written as it is, with no layout.
        static var minimumChildren: Int { 16 }

        /// The offset of the first child's first byte.
        var start: Int
        /// Each child's key (``TreeNode/reuseKey``; 0: not copied).
        var keys: [UInt] = []
        /// Where each child ends, from ``start`` (the comma after it excluded).
        var ends: [Int] = []
        /// The children written, whose chunks a later list may share (see
        /// ``NodeList/countOfPrefix(withKeys:of:)``).
        var children = NodeList()
    }

    /// The tree as compact JSON, in ``form``.
    public let bytes: [UInt8]
    /// Which form ``bytes`` are in.
    public let form: Form
    /// The tree's size, measured while writing it.
    public let size: TreeSize
    /// How many pages were copied from the earlier encoding rather than written.
    public let copiedPages: Int
    /// Whether it recorded where a long stack's pages lie: whether a later encoding can copy
    /// from it.
    public var recordsStacks: Bool { !layouts.isEmpty }
    /// The tree written, which keeps every page named in ``layouts`` alive.
    private let tree: NavigationTree
    /// The layouts of the flows with at least ``Layout/minimumChildren`` children, by flow.
    let layouts: [NodeID: Layout]

    init(
        bytes: [UInt8], form: Form = .stored, size: TreeSize, copiedPages: Int, tree: NavigationTree,
        layouts: [NodeID: Layout]
    ) {
        self.bytes = bytes
        self.form = form
        self.size = size
        self.copiedPages = copiedPages
        self.tree = tree
        self.layouts = layouts
    }
}

extension NavigationTree {
    /// The tree as compact JSON, its size, and the layout of its long stacks; the pages a long
    /// stack starts with that `previous` (an earlier encoding, of any tree) wrote as they are
    /// are copied from it. The bytes are those of ``jsonBytes()``.
    public func encoded(reusing previous: EncodedTree?) throws -> EncodedTree {
        var writer = TreeJSONWriter(keepingLayouts: true, previous: previous)
        try writer.write(self)
        return EncodedTree(
            bytes: writer.bytes, size: writer.size, copiedPages: writer.copiedPages, tree: self,
            layouts: writer.layouts ?? [:])
    }
}

extension NodeList {
    /// How many nodes the list starts with whose ``TreeNode/reuseKey``s are the first of `keys`
    /// (none of them 0), `keys` being those of `earlier`'s nodes. A full chunk this list shares
    /// with `earlier` (a step changed only what follows it) holds the very nodes whose keys those
    /// are, so it counts whole; any other chunk is read node by node, in place, and not the
    /// page's unchanging parts (a key that is not 0 names them): a walk of a thousand pages
    /// follows no reference.
    func countOfPrefix(withKeys keys: [UInt], of earlier: NodeList) -> Int {
        let keyed = keys.firstIndex(of: 0) ?? keys.count
        var count = 0
        for (chunkIndex, chunk) in chunks.enumerated() {
            if chunk.count == Self.chunkSize, count + chunk.count <= keyed, chunkIndex < earlier.chunks.count,
                Self.same(chunk, earlier.chunks[chunkIndex])
            {
                count += chunk.count
                continue
            }
            for index in chunk.indices {
                guard count < keyed, case .page(let page) = chunk[index], page.embedded.isEmpty,
                    page.identityBits == keys[count]
                else { return count }
                count += 1
            }
        }
        return count
    }

    /// Whether `a` and `b` are one array's storage (so the same nodes), not merely equal.
    private static func same(_ a: [TreeNode], _ b: [TreeNode]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }
}

extension TreeNode {
    /// What identifies this child's JSON form: a page without embedded flows by its unchanging
    /// parts' identity and its two flags; 0 for anything else (a flow, a page with embedded
    /// flows, a page whose params did not encode).
    var reuseKey: UInt {
        guard case .page(let page) = self, page.embedded.isEmpty else { return 0 }
        return page.identityKey
    }
}

/// A writer of a tree's JSON form that records where each long stack's children lie, and copies
/// the pages a stack still starts with from an earlier encoding of the same form (see
/// ``EncodedTree``).
protocol StackCopyingWriter {
    /// What writing a child may throw (`Never` for a form whose writing cannot fail).
    associatedtype Failure: Error
    /// What was written.
    var bytes: [UInt8] { get set }
    /// How many pages were copied from ``previous``.
    var copiedPages: Int { get set }
    /// The layouts of the long stacks written, when kept.
    var layouts: [NodeID: EncodedTree.Layout]? { get set }
    /// The encoding whose unchanged stack starts are copied rather than written again.
    var previous: EncodedTree? { get }
    /// Writes one child of a flow.
    mutating func write(_ node: TreeNode) throws(Failure)
    /// Counts `pages` copied rather than written.
    mutating func copied(_ pages: Int)
}

extension StackCopyingWriter {
    /// The children of `flow`, comma-separated, their layout recorded: those it starts with that
    /// are the very pages the previous encoding's layout of `flow` starts with are copied from
    /// its bytes.
    mutating func writeRecordingLayout(_ flow: FlowNode) throws(Failure) {
        let children = flow.children
        var layout = EncodedTree.Layout(start: bytes.count, children: children)
        layout.keys.reserveCapacity(children.count)
        layout.ends.reserveCapacity(children.count)
        var index = 0
        if let previous, let earlier = previous.layouts[flow.id] {
            index = children.countOfPrefix(withKeys: earlier.keys, of: earlier.children)
            if index > 0 {
                bytes.append(contentsOf: previous.bytes[earlier.start..<earlier.start + earlier.ends[index - 1]])
                layout.keys.append(contentsOf: earlier.keys[..<index])
                layout.ends.append(contentsOf: earlier.ends[..<index])
                copied(index)
                copiedPages += index
            }
        }
        while index < children.count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try write(children[index])
            layout.keys.append(children[index].reuseKey)
            layout.ends.append(bytes.count - layout.start)
            index += 1
        }
        layouts?[flow.id] = layout
    }

    /// Appends `text`.
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
