/// How a node hangs from its parent flow.
public enum Attachment: Hashable, Sendable {
    /// Child `index` of the flow's container (for an embedded flow: the index of the page it is
    /// embedded in).
    case child(Int)
    /// The flow's presented node.
    case presented
}

extension FlowNode {
    /// The page this flow shows on top: what it presents, else its container's visible page.
    public var topPage: PageNode? {
        if let presented {
            switch presented {
            case .page(let page): return page
            case .flow(let flow): if let top = flow.topPage { return top }
            }
        }
        return containerTopPage
    }

    /// The page this flow's container shows, passing over what the flow presents (the page under
    /// its modal): the selected tab's top page, else the last child's.
    public var containerTopPage: PageNode? {
        switch container {
        case .tabs:
            guard children.indices.contains(selected), case .flow(let flow) = children[selected] else { return nil }
            return flow.topPage
        case .stack, .split, .single:
            switch children.last {
            case .page(let page)?: return page
            case .flow(let flow)?: return flow.topPage
            case nil: return nil
            }
        }
    }

    /// This flow's ``topPage``, appending to `path` the flows from this one down to it, each
    /// with how the next node hangs from it (what ``NavigationTree/ancestry(of:)`` of that page
    /// lists below this flow). With `ignoringPresented`, this flow's own presented node is
    /// passed over: the page its container shows, under the modal. `nil`, with `path`
    /// unchanged, when no page is visible.
    public func topPage(ignoringPresented: Bool = false, path: inout [(flow: FlowNode, via: Attachment)]) -> PageNode? {
        let start = path.count
        if !ignoringPresented, let presented {
            path.append((self, .presented))
            switch presented {
            case .page(let page): return page
            case .flow(let flow): if let top = flow.topPage(path: &path) { return top }
            }
            path.removeSubrange(start...)
        }
        let index = container == .tabs ? selected : children.count - 1
        guard children.indices.contains(index) else { return nil }
        path.append((self, .child(index)))
        switch children[index] {
        case .page(let page) where container != .tabs: return page
        case .flow(let flow): if let top = flow.topPage(path: &path) { return top }
        case .page: break
        }
        path.removeSubrange(start...)
        return nil
    }

    /// Whether any page lies in this flow's subtree (a settled tree has no flow without pages).
    public var hasPages: Bool {
        if case .page? = presented { return true }
        if case .flow(let flow)? = presented, flow.hasPages { return true }
        return children.contains { child in
            switch child {
            case .page: true
            case .flow(let flow): flow.hasPages
            }
        }
    }

    /// The visible pages: the top, a split's master beside its detail, pages of flows embedded in
    /// visible pages.
    func collectVisible(into visible: inout Set<NodeID>) {
        if let presented {
            switch presented {
            case .page(let page):
                page.collectVisible(into: &visible)
                return
            case .flow(let flow) where flow.hasPages:
                flow.collectVisible(into: &visible)
                return
            case .flow:
                break
            }
        }
        switch container {
        case .tabs:
            if children.indices.contains(selected), case .flow(let flow) = children[selected] {
                flow.collectVisible(into: &visible)
            }
        case .split:
            for case .page(let page) in children { page.collectVisible(into: &visible) }
        case .stack, .single:
            switch children.last {
            case .page(let page)?: page.collectVisible(into: &visible)
            case .flow(let flow)?: flow.collectVisible(into: &visible)
            case nil: break
            }
        }
    }

    /// The attachments leading from this flow down to `target` (empty when it is this flow).
    func path(to target: NodeID) -> [(flow: NodeID, via: Attachment)]? {
        var path: [(flow: NodeID, via: Attachment)] = []
        return appendPath(to: target, into: &path) { ($0.id, $1) } ? path : nil
    }

    /// Appends `element(flow, attachment)` for each flow from this one down to `target` to
    /// `path`; `false` (and `path` unchanged) when `target` is not below.
    ///
    /// A flow's element is made once `target` was found below it, and inserted before the
    /// elements of the flows below: the branches searched in vain make none.
    func appendPath<Element>(
        to target: NodeID, into path: inout [Element], _ element: (FlowNode, Attachment) -> Element
    ) -> Bool {
        if id == target { return true }
        let start = path.count
        // From the top down: what is presented, then the last child (a stack's top), where the
        // pages asked about usually are.
        if let presented, presented.appendPath(to: target, into: &path, element) {
            path.insert(element(self, .presented), at: start)
            return true
        }
        for index in children.indices.reversed() where children[index].appendPath(to: target, into: &path, element) {
            path.insert(element(self, .child(index)), at: start)
            return true
        }
        return false
    }

    /// Calls `body` with every page of the subtree, in the order of ``NavigationTree/pages``.
    func forEachPage(_ body: (PageNode) -> Void) {
        for child in children { child.forEachPage(body) }
        presented?.forEachPage(body)
    }

    /// Appends the id of every page of the subtree whose URL is `url` to `matches`.
    ///
    /// A page whose URL's hash differs and that holds no flows is passed over without a call:
    /// any call in the loop makes the compiler copy each node it reads (two references retained
    /// and released a page), which was most of a walk of a thousand pages.
    func collectPages(at url: PageURL, into matches: inout [NodeID]) {
        for chunk in children.chunks {
            for index in chunk.indices {
                if case .page(let page) = chunk[index], !page.mayHave(url), page.embedded.isEmpty { continue }
                chunk[index].collectPages(at: url, into: &matches)
            }
        }
        presented?.collectPages(at: url, into: &matches)
    }

    func findFlow(_ target: NodeID) -> FlowNode? {
        if id == target { return self }
        for child in children {
            switch child {
            case .flow(let flow): if let found = flow.findFlow(target) { return found }
            case .page(let page): for flow in page.embedded { if let found = flow.findFlow(target) { return found } }
            }
        }
        switch presented {
        case .flow(let flow)?: return flow.findFlow(target)
        case .page(let page)?:
            for flow in page.embedded { if let found = flow.findFlow(target) { return found } }
            return nil
        case nil: return nil
        }
    }

    func findPage(_ target: NodeID) -> PageNode? {
        func search(_ node: TreeNode) -> PageNode? {
            switch node {
            case .flow(let flow): return flow.findPage(target)
            case .page(let page):
                if page.id == target { return page }
                for flow in page.embedded { if let found = flow.findPage(target) { return found } }
                return nil
            }
        }
        // From the top down, where the pages asked about usually are.
        if let found = presented.flatMap(search) { return found }
        for child in children.reversed() { if let found = search(child) { return found } }
        return nil
    }

    /// Whether a flow below this one (not this one) has no pages.
    var containsEmptyFlow: Bool {
        // A page without flows is passed over without a call (see `collectPages(at:into:)`).
        for chunk in children.chunks {
            for index in chunk.indices {
                if case .page(let page) = chunk[index], page.embedded.isEmpty { continue }
                if chunk[index].containsEmptyFlow { return true }
            }
        }
        return presented?.containsEmptyFlow ?? false
    }

    /// Every node of the subtree, depth first, with the flow that holds it.
    func forEachNode(parent: NodeID?, _ body: (TreeNode, NodeID?) -> Void) {
        body(.flow(self), parent)
        for child in children { child.forEachNode(parent: id, body) }
        presented?.forEachNode(parent: id, body)
    }
}

extension PageNode {
    func collectVisible(into visible: inout Set<NodeID>) {
        visible.insert(id)
        for flow in embedded { flow.collectVisible(into: &visible) }
    }
}

extension TreeNode {
    /// Appends the attachments below this node down to `target` (none when this node is the
    /// target); `false` when `target` is not in this subtree.
    func appendPath<Element>(
        to target: NodeID, into path: inout [Element], _ element: (FlowNode, Attachment) -> Element
    ) -> Bool {
        switch self {
        case .page(let page):
            if page.id == target { return true }
            for flow in page.embedded where flow.appendPath(to: target, into: &path, element) { return true }
            return false
        case .flow(let flow):
            return flow.appendPath(to: target, into: &path, element)
        }
    }

    /// Calls `body` with every page of the subtree, a page before its embedded flows' pages.
    func forEachPage(_ body: (PageNode) -> Void) {
        switch self {
        case .page(let page):
            body(page)
            for flow in page.embedded { flow.forEachPage(body) }
        case .flow(let flow):
            flow.forEachPage(body)
        }
    }

    /// Whether this node is a flow without pages or holds one (embedded in a page, or below).
    var containsEmptyFlow: Bool {
        switch self {
        case .flow(let flow): return !flow.hasPages || flow.containsEmptyFlow
        case .page(let page):
            for index in page.embedded.indices {
                if !page.embedded[index].hasPages || page.embedded[index].containsEmptyFlow { return true }
            }
            return false
        }
    }

    func collectPages(at url: PageURL, into matches: inout [NodeID]) {
        switch self {
        case .page(let page):
            if page.has(url) { matches.append(page.id) }
            for index in page.embedded.indices { page.embedded[index].collectPages(at: url, into: &matches) }
        case .flow(let flow):
            flow.collectPages(at: url, into: &matches)
        }
    }

    func forEachNode(parent: NodeID?, _ body: (TreeNode, NodeID?) -> Void) {
        switch self {
        case .page(let page):
            body(self, parent)
            for flow in page.embedded { flow.forEachNode(parent: parent, body) }
        case .flow(let flow):
            flow.forEachNode(parent: parent, body)
        }
    }
}

extension NavigationTree {
    /// The page the browser should show: what is presented on top, else the visible page of the
    /// selected tab, the top of the stack, the detail of a split. `nil` only in an invalid tree.
    public var top: PageNode? { root.topPage }

    /// Every page that is visible now (see Docs/CONTRACT.md §1).
    public var visiblePages: Set<NodeID> {
        var visible = Set<NodeID>()
        root.collectVisible(into: &visible)
        return visible
    }

    /// The page with id `id`, if it is in the tree.
    public func page(_ id: NodeID) -> PageNode? {
        if let top, top.id == id { return top }  // a step from the page shown, the usual case
        return root.findPage(id)
    }

    /// The flow with id `id`, if it is in the tree.
    public func flow(_ id: NodeID) -> FlowNode? { root.findFlow(id) }

    /// Every page, depth first.
    public var pages: [PageNode] {
        var pages: [PageNode] = []
        root.forEachPage { pages.append($0) }
        return pages
    }

    /// Every flow, depth first, the root first.
    public var flows: [FlowNode] {
        var flows: [FlowNode] = []
        forEachNode { node, _ in if case .flow(let flow) = node { flows.append(flow) } }
        return flows
    }

    /// The page a visit to `url` shows: the first of ``pages(at:)``, found without walking the
    /// tree when it is the top (a refresh, the usual case).
    public func page(at url: String) -> PageNode? {
        if let top, top.url == url { return top }
        return rankedMatches(at: url).min(by: Self.precedes).flatMap { page($0.id) }
    }

    /// The pages whose URL is `url`: the top first, then visible ones, then the most recent.
    public func pages(at url: String) -> [PageNode] {
        var pages: [NodeID: PageNode] = [:]
        root.forEachPage { page in if page.url == url { pages[page.id] = page } }
        return rankedMatches(at: url).sorted(by: Self.precedes).compactMap { pages[$0.id] }
    }

    /// The ids of the pages at `url`, each with its rank in the order of ``pages(at:)``: 0 the
    /// top, 1 a visible page, 2 any other. Worked out once a match: a long stack may hold dozens
    /// of pages at one URL, and shows few, so the visible ones are searched as a short list.
    private func rankedMatches(at url: String) -> [(rank: Int, id: NodeID)] {
        var matches: [NodeID] = []
        root.collectPages(at: PageURL(url), into: &matches)
        guard matches.count > 1 else { return matches.map { (2, $0) } }
        let visible = Array(visiblePages)
        let topID = top?.id
        return matches.map { id in (id == topID ? 0 : visible.contains(id) ? 1 : 2, id) }
    }

    /// Whether `a` comes before `b` in the order of ``pages(at:)``: by rank, then the latest first.
    private static func precedes(_ a: (rank: Int, id: NodeID), _ b: (rank: Int, id: NodeID)) -> Bool {
        a.rank != b.rank ? a.rank < b.rank : a.id > b.id
    }

    /// The flow a page belongs to (the flow whose container or presentation holds it).
    public func owner(ofPage id: NodeID) -> NodeID? {
        guard page(id) != nil else { return nil }
        return root.path(to: id)?.last?.flow
    }

    /// The parent of a flow (for an embedded flow: the flow of the page it is embedded in).
    public func parent(ofFlow id: NodeID) -> NodeID? {
        root.path(to: id)?.last?.flow
    }

    /// The flows a step without `from` tries, in order: the top page's flow, then its ancestors.
    public var responderChain: [NodeID] {
        guard let top, let path = root.path(to: top.id) else { return [root.id] }
        return path.map(\.flow).reversed()
    }

    /// The flows from the root down to node `id`, each with how the next node hangs from it.
    public func path(to id: NodeID) -> [(flow: NodeID, via: Attachment)]? { root.path(to: id) }

    /// The flows leading from the root down to node `id`, each with how the next node hangs
    /// from it, as ``path(to:)`` gives their ids; `nil` when `id` is not in the tree. One walk
    /// where `path(to:)` and ``flow(_:)`` for each step would take several.
    public func ancestry(of id: NodeID) -> [(flow: FlowNode, via: Attachment)]? {
        var ancestry: [(flow: FlowNode, via: Attachment)] = []
        return root.appendPath(to: id, into: &ancestry) { ($0, $1) } ? ancestry : nil
    }

    func forEachNode(_ body: (TreeNode, NodeID?) -> Void) {
        root.forEachNode(parent: nil, body)
    }
}
