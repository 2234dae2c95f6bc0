extension NavigationTree {
    /// Checks every invariant of a settled tree (rule 12): ids unique, positive and below
    /// ``nextNodeID``; registered flow and page types; containers holding what they may (a tabs
    /// flow: one or more flows and a selected tab among them; a stack: pages; a split: one or
    /// two pages; a single flow: one page or flow); no flow without pages; a top page.
    ///
    /// - Throws: ``NavigationError`` naming the first broken invariant.
    public func validate(_ registry: FlowRegistry) throws(NavigationError) {
        var seen = Set<NodeID>()
        var failure: NavigationError?
        forEachNode { node, parent in
            guard failure == nil else { return }
            let id = node.id
            guard id.rawValue > 0, id.rawValue < nextNodeID else {
                failure = .invalidTree("node \(id) is outside 1..<\(nextNodeID), the ids given out so far")
                return
            }
            guard seen.insert(id).inserted else {
                failure = .invalidTree("node id \(id) is used twice")
                return
            }
            switch node {
            case .page(let page):
                do throws(NavigationError) { try registry.check(page.page) } catch { failure = error }
            case .flow(let flow):
                do throws(NavigationError) { try registry.check(flow.flow) } catch { failure = error }
                if failure == nil { failure = Self.containerProblem(flow, isRoot: parent == nil) }
            }
        }
        if let failure { throw failure }
        guard top != nil else { throw .invalidTree("no page is visible") }
    }

    private static func containerProblem(_ flow: FlowNode, isRoot: Bool) -> NavigationError? {
        let name = "flow \(flow.flow.name)#\(flow.id)"
        let pages = flow.children.filter { if case .page = $0 { return true } else { return false } }.count
        let flows = flow.children.count - pages
        if !isRoot && !flow.hasPages { return .invalidTree("\(name) has no pages; it should have ended") }
        switch flow.container {
        case .tabs:
            if pages > 0 { return .invalidTree("\(name) is a tabs flow holding pages") }
            if !flow.children.isEmpty && !flow.children.indices.contains(flow.selected) {
                return .invalidTree("\(name) selects tab \(flow.selected) of \(flow.children.count)")
            }
        case .stack:
            if flows > 0 { return .invalidTree("\(name) is a stack holding flows") }
        case .split:
            if flows > 0 || pages > 2 {
                return .invalidTree("\(name) is a split holding more than a master and a detail page")
            }
        case .single:
            if flow.children.count > 1 {
                return .invalidTree("\(name) is a single flow holding \(flow.children.count) nodes")
            }
        }
        return nil
    }
}
