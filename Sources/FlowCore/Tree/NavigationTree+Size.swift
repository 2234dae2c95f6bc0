/// How large a tree is, in the measures a session's limits count.
public struct TreeSize: Sendable, Hashable {
    /// Its pages and flows (embedded flows and what is presented included).
    public var nodes: Int
    /// The most pages or flows one flow's container holds: the depth of the deepest stack.
    public var deepestStack: Int
}

extension NavigationTree {
    /// How large the tree is: one walk over its nodes.
    public var size: TreeSize {
        var size = TreeSize(nodes: 0, deepestStack: 0)
        root.forEachNode(parent: nil) { node, _ in
            size.nodes += 1
            if case .flow(let flow) = node { size.deepestStack = max(size.deepestStack, flow.children.count) }
        }
        return size
    }
}
