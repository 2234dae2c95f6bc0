extension FlowNode {
    /// Runs `body` on the flow `target` of this subtree; `nil` when it is not here.
    mutating func modify<R>(_ target: NodeID, _ body: (inout FlowNode) -> R) -> R? {
        if id == target { return body(&self) }
        for index in children.indices {
            if let result = children[index].modify(target, body) { return result }
        }
        if presented != nil, let result = presented!.modify(target, body) { return result }
        return nil
    }

    /// Removes and returns the children from `index` on, the topmost first.
    mutating func removeChildren(from index: Int) -> [TreeNode] {
        guard index < children.count else { return [] }
        let removed = Array(children[index...].reversed())
        children.removeSubrange(index...)
        if container == .tabs { selected = min(selected, max(children.count - 1, 0)) }
        return removed
    }

    /// Removes and returns the child at `index`, keeping the selected tab where it was.
    mutating func removeChild(at index: Int) -> TreeNode {
        let removed = children.remove(at: index)
        if container == .tabs {
            if index < selected { selected -= 1 }
            selected = min(selected, max(children.count - 1, 0))
        }
        return removed
    }

    /// Removes and returns the presented node.
    mutating func takePresented() -> TreeNode? {
        defer { presented = nil }
        return presented
    }
}

extension TreeNode {
    mutating func modify<R>(_ target: NodeID, _ body: (inout FlowNode) -> R) -> R? {
        switch self {
        case .flow(var flow):
            guard let result = flow.modify(target, body) else { return nil }
            self = .flow(flow)
            return result
        case .page(var page):
            for index in page.embedded.indices {
                if let result = page.embedded[index].modify(target, body) {
                    self = .page(page)
                    return result
                }
            }
            return nil
        }
    }
}

extension NavigationTree {
    /// Runs `body` on flow `id`; `nil` when the flow is not in the tree.
    @discardableResult
    mutating func modifyFlow<R>(_ id: NodeID, _ body: (inout FlowNode) -> R) -> R? {
        root.modify(id, body)
    }
}
