import FlowWeb

/// What an exploration found: how much it saw, the graph, and the problems with their paths.
public struct ExplorationReport: Sendable {
    /// Distinct states reached (identified by the tree's value and the app data).
    public var states: Int
    /// States whose actions were all tried (the others lay at the depth bound).
    public var expanded: Int
    /// Requests sent (renders and actions).
    public var requests: Int
    /// Whether the state bound stopped the exploration before it ran out of new states.
    public var truncated: Bool
    /// The pages and the steps between them.
    public var graph: FlowGraph
    /// Every step the app's pages send, with its params' types (for the OpenAPI document).
    public var steps: [StepSignature]
    /// The problems found; none for an app whose every explored state works.
    public var findings: [ExplorationFinding]
    /// How long it took.
    public var duration: Duration

    /// One line: states, edges, requests and time.
    public var summary: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return
            "\(states) states (\(expanded) expanded\(truncated ? ", stopped by the state bound" : "")), \(graph.nodes.count) pages, \(graph.edges.count) edges, \(requests) requests, \(findings.count) findings in \(String(format: "%.2f", seconds)) s"
    }
}
