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
    }

    /// The tree as compact JSON (what stores keep).
    public let bytes: [UInt8]
    /// The tree's size, measured while writing it.
    public let size: TreeSize
    /// How many pages were copied from the earlier encoding rather than written.
    public let copiedPages: Int
    /// The tree written, which keeps every page named in ``layouts`` alive.
    private let tree: NavigationTree
    /// The layouts of the flows with at least ``Layout/minimumChildren`` children, by flow.
    let layouts: [NodeID: Layout]

    init(bytes: [UInt8], size: TreeSize, copiedPages: Int, tree: NavigationTree, layouts: [NodeID: Layout]) {
        self.bytes = bytes
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

extension TreeNode {
    /// What identifies this child's JSON form: a page without embedded flows by its unchanging
    /// parts' identity and its two flags; 0 for anything else (a flow, a page with embedded
    /// flows, a page whose params did not encode).
    var reuseKey: UInt {
        guard case .page(let page) = self, page.embedded.isEmpty else { return 0 }
        return page.identityKey
    }
}
