import FlowCore

/// What changed between two trees of one session: the pages pushed, popped, presented and
/// dismissed, the tabs selected, and whether the app data changed. Node ids are never reused
/// within a session, so a page in both trees is the same page.
struct TreeDifference: Sendable {
    /// One change.
    enum Change: Sendable, Hashable, CustomStringConvertible {
        case pushed(page: String, node: NodeID, url: String)
        case presented(page: String, node: NodeID, url: String)
        case popped(page: String, node: NodeID, url: String)
        case dismissed(page: String, node: NodeID, url: String)
        case selected(flow: String, node: NodeID, tab: Int)

        var description: String {
            switch self {
            case .pushed(let page, let node, let url): "pushed \(page)#\(node) \(url)"
            case .presented(let page, let node, let url): "presented \(page)#\(node) \(url)"
            case .popped(let page, let node, let url): "popped \(page)#\(node) \(url)"
            case .dismissed(let page, let node, let url): "dismissed \(page)#\(node) \(url)"
            case .selected(let flow, let node, let tab): "selected tab \(tab + 1) of \(flow)#\(node)"
            }
        }
    }

    /// The changes: pages gone first (oldest first), then pages added, then tab selections.
    var changes: [Change]
    /// Whether the app data differs.
    var appDataChanged: Bool

    /// The difference from `old` to `new`.
    init(from old: NavigationTree, to new: NavigationTree) {
        let oldPages = old.pages
        let newPages = new.pages
        let oldIDs = Set(oldPages.map(\.id))
        let newIDs = Set(newPages.map(\.id))
        var changes: [Change] = []
        for page in oldPages where !newIDs.contains(page.id) {
            changes.append(
                Self.isPresented(page.id, in: old)
                    ? .dismissed(page: page.page.name, node: page.id, url: page.url)
                    : .popped(page: page.page.name, node: page.id, url: page.url))
        }
        for page in newPages where !oldIDs.contains(page.id) {
            changes.append(
                Self.isPresented(page.id, in: new)
                    ? .presented(page: page.page.name, node: page.id, url: page.url)
                    : .pushed(page: page.page.name, node: page.id, url: page.url))
        }
        for flow in new.flows where flow.container == .tabs {
            if let before = old.flow(flow.id), before.selected != flow.selected {
                changes.append(.selected(flow: flow.flow.name, node: flow.id, tab: flow.selected))
            }
        }
        self.changes = changes
        appDataChanged = old.appData != new.appData
    }

    /// Whether page `id` hangs from its flow as the presented node (a modal), rather than in its
    /// flow's container.
    private static func isPresented(_ id: NodeID, in tree: NavigationTree) -> Bool {
        tree.path(to: id)?.last?.via == .presented
    }
}
