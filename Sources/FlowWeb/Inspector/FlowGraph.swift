/// An app's navigation graph as explored: pages as nodes (grouped by the flow that shows them),
/// the actions between them as edges, labelled with the step or the kind of visit.
public struct FlowGraph: Sendable, Hashable {
    /// A page as shown by a flow.
    public struct Node: Sendable, Hashable, Comparable {
        /// The flow that shows the page (its name).
        public var flow: String
        /// The page's name.
        public var page: String

        /// A node.
        public init(flow: String, page: String) {
            self.flow = flow
            self.page = page
        }

        /// The node's id in DOT and SVG: `flow.page`.
        public var id: String { "\(flow).\(page)" }

        public static func < (lhs: Node, rhs: Node) -> Bool { (lhs.flow, lhs.page) < (rhs.flow, rhs.page) }
    }

    /// What kind of action an edge is.
    public enum Kind: String, Sendable, Hashable, Comparable, CaseIterable {
        /// A step, from a link or a form.
        case step
        /// A visit to a page in the tree: Back, a tab, Close on a modal.
        case visit
        /// A deep-link route typed in the address bar.
        case deepLink = "deep link"
        /// A link to another URL of the site that is not a step.
        case link

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// An action that led from one page to another (or to another state of the same page).
    public struct Edge: Sendable, Hashable, Comparable {
        /// The top page before.
        public var from: Node
        /// The top page after.
        public var to: Node
        /// What kind of action.
        public var kind: Kind
        /// The step's name for a step; the kind's name for the others.
        public var label: String

        /// An edge.
        public init(from: Node, to: Node, kind: Kind, label: String) {
            self.from = from
            self.to = to
            self.kind = kind
            self.label = label
        }

        public static func < (lhs: Edge, rhs: Edge) -> Bool {
            (lhs.from, lhs.to, lhs.kind, lhs.label) < (rhs.from, rhs.to, rhs.kind, rhs.label)
        }
    }

    /// Every page seen on top.
    public var nodes: Set<Node>
    /// Every edge seen.
    public var edges: Set<Edge>
    /// The page a new session starts on, when known.
    public var start: Node?

    /// A graph.
    public init(nodes: Set<Node> = [], edges: Set<Edge> = [], start: Node? = nil) {
        self.nodes = nodes
        self.edges = edges
        self.start = start
    }

    /// The graph in Graphviz's DOT language: a cluster per flow, a node per page (its id
    /// ``Node/id``), one arrow per pair of pages labelled with the actions of `kinds` that take
    /// it (steps by default: visits and deep links lead almost anywhere), one per line;
    /// `highlighted` (the page a session shows) filled.
    public func dot(title: String = "flows", highlighted: Node? = nil, kinds: Set<Kind> = [.step]) -> String {
        var lines = [
            // newrank: Graphviz 2.42 cannot rank edges between clusters without it.
            "digraph \(Self.quoted(title)) {", "  rankdir=LR; newrank=true;",
            "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];",
            "  edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        let byFlow = Dictionary(grouping: nodes, by: \.flow)
        for flow in byFlow.keys.sorted() {
            lines.append("  subgraph \(Self.quoted("cluster_" + flow)) {")
            lines.append("    label=\(Self.quoted(flow)); style=rounded; color=gray;")
            for node in byFlow[flow, default: []].sorted() {
                let fill = node == highlighted ? ", fillcolor=\"#ffd7d5\", penwidth=2" : ""
                lines.append("    \(Self.quoted(node.id)) [label=\(Self.quoted(node.page))\(fill)];")
            }
            lines.append("  }")
        }
        // One arrow per pair of pages, labelled with every step that takes it.
        let pairs = Dictionary(grouping: edges.filter { kinds.contains($0.kind) }) { Pair(from: $0.from, to: $0.to) }
        for pair in pairs.keys.sorted() {
            let labels = Set(pairs[pair, default: []].map(\.label)).sorted().joined(separator: "\n")
            lines.append("  \(Self.quoted(pair.from.id)) -> \(Self.quoted(pair.to.id)) [label=\(Self.quoted(labels))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private struct Pair: Hashable, Comparable {
        var from: Node
        var to: Node
        static func < (lhs: Pair, rhs: Pair) -> Bool { (lhs.from, lhs.to) < (rhs.from, rhs.to) }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
