import FlowCore

/// The view models of the inspector's pages, which FlowWeb's templates `inspector/page`,
/// `inspector/entry` and `inspector/graph` render (an app's `Templates/inspector/…` replace
/// them). Every key is always present, so that a nested section never reads its parent's.
enum InspectorModels {
    /// `/_inspector`: the session's tree, app data and history.
    struct Page: Encodable {
        var session: String
        var version: Int
        var writer: String
        var tree: Box
        var appData: String
        var entries: [Row]
    }

    /// `/_inspector/history/{seq}`: one entry, the tree and the page then, what changed since.
    struct Entry: Encodable {
        var seq: Int
        var previous: Int?
        var next: Int?
        var version: Int
        var writtenLevel: Int
        var buildLevel: Int
        var entries: [Row]
        var tree: Box
        /// The page then on top, its links and forms made inert (see ``inert(_:)``).
        var pastPage: String
        var appData: String
        var unchanged: Bool
        var changes: [String]
        var appDataChanged: Bool
    }

    /// `/_inspector/graph`: the navigation graph, drawn and listed (`nil` when none is configured).
    struct Graph: Encodable {
        struct Drawn: Encodable {
            var svg: String
            var flows: [GraphFlow]
        }
        var graph: Drawn?
    }

    /// A box of a tree: a flow with what it holds (`kind` says which and how), or a page with
    /// the flows it embeds.
    struct Box: Encodable {
        var isFlow: Bool
        /// What the box is to its parent: `""`, `"presents "`, `"embeds "`.
        var label: String
        var name: String
        var id: String
        var kind: String
        var isTop: Bool
        var url: String
        /// Whether a page's URL is a link (not in a past tree).
        var linked: Bool
        var children: [Box]

        /// The boxes of `flow` and everything in it; `top` is marked.
        init(_ flow: FlowNode, top: NodeID?, label: String = "", linked: Bool) {
            isFlow = true
            self.label = label
            name = flow.flow.name
            id = "\(flow.id)"
            kind =
                "flow #\(flow.id) · \(flow.container.rawValue)"
                + (flow.container == .tabs ? " · tab \(flow.selected + 1) selected" : "")
            isTop = false
            url = ""
            self.linked = linked
            children =
                flow.children.map { Box.box($0, top: top, label: "", linked: linked) }
                + (flow.presented.map { [Box.box($0, top: top, label: "presents ", linked: linked)] } ?? [])
        }

        private init(page: PageNode, top: NodeID?, label: String, linked: Bool) {
            isFlow = false
            self.label = label
            name = page.page.name
            id = "\(page.id)"
            kind = ""
            isTop = page.id == top
            url = page.url
            self.linked = linked
            children = page.embedded.map { Box($0, top: top, label: "embeds ", linked: linked) }
        }

        private static func box(_ node: TreeNode, top: NodeID?, label: String, linked: Bool) -> Box {
            switch node {
            case .flow(let flow): Box(flow, top: top, label: label, linked: linked)
            case .page(let page): Box(page: page, top: top, label: label, linked: linked)
            }
        }
    }

    /// A history entry as a row of the table.
    struct Row: Encodable {
        var seq: Int
        var source: String
        var step: String
        var outcome: String
        var actions: String
        var top: String

        init(_ entry: HistoryEntry) {
            seq = entry.seq
            source = entry.source.rawValue
            step =
                (entry.step.map { $0.canonical } ?? entry.url ?? "—")
                + (entry.adaptedStep.map { " → \($0.canonical)" } ?? "")
            outcome = entry.outcome.rawValue
            actions = entry.actions.map(\.description).joined(separator: ", ")
            top = entry.top.url
        }
    }

    /// A flow of the graph's list: its pages, each with the steps that leave it.
    struct GraphFlow: Encodable {
        struct Page: Encodable {
            var id: String
            var page: String
            var isCurrent: Bool
            var hasSteps: Bool
            var steps: [Step]
        }
        struct Step: Encodable {
            var label: String
            var targets: [Target]
        }
        struct Target: Encodable {
            var id: String
            var name: String
            var isFirst: Bool
        }
        var name: String
        var pages: [Page]

        /// Each flow of `graph`, `current` marked.
        static func all(_ graph: FlowGraph, current: FlowGraph.Node?) -> [GraphFlow] {
            let steps = graph.edges.filter { $0.kind == .step }
            return Set(graph.nodes.map(\.flow)).sorted().map { flow in
                let pages = graph.nodes.filter { $0.flow == flow }.sorted().map { node in
                    let leaving = Dictionary(grouping: steps.filter { $0.from == node }, by: \.label)
                    let steps = leaving.keys.sorted().map { label in
                        let targets = Set(leaving[label, default: []].map(\.to)).sorted()
                        return Step(
                            label: label,
                            targets: targets.enumerated().map { index, target in
                                Target(
                                    id: target.id, name: target.flow == flow ? target.page : target.id,
                                    isFirst: index == 0)
                            })
                    }
                    return Page(
                        id: node.id, page: node.page, isCurrent: node == current, hasSteps: !steps.isEmpty, steps: steps
                    )
                }
                return GraphFlow(name: flow, pages: pages)
            }
        }
    }

    /// `html` with its links and forms made inert: addresses kept as `data-` attributes (the
    /// template disables the controls).
    static func inert(_ html: String) -> String {
        html.replacingOccurrences(of: " href=\"", with: " data-href=\"")
            .replacingOccurrences(of: " action=\"", with: " data-action=\"")
            .replacingOccurrences(of: " formaction=\"", with: " data-formaction=\"")
    }
}
