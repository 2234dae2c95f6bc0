extension FlowGraph {
    /// The graph drawn as SVG, without Graphviz: pages as boxes in columns by how many actions
    /// they are from the start (left to right), coloured by flow with a legend,
    /// one arrow per pair of pages labelled with the steps that take it (steps only, as in
    /// ``dot(title:highlighted:kinds:)``), arrows that go back to an earlier column drawn above
    /// the boxes; `highlighted` (the page a session shows) outlined. Colours are SVG attributes,
    /// not CSS, so a strict Content-Security-Policy shows it as drawn.
    public func svg(title: String = "Navigation graph", highlighted: Node? = nil) -> String {
        let layout = SVGLayout(self)
        var svg = SVGText()
        svg.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("viewBox", "0 0 \(layout.width) \(layout.height)"),
                ("width", "\(layout.width)"), ("height", "\(layout.height)"), ("role", "img"),
                ("aria-labelledby", "graph-title"), ("font-family", "Helvetica, Arial, sans-serif"),
                ("font-size", "12"),
            ])
        svg.element("title", [("id", "graph-title")], text: title)
        svg.raw(
            ##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" "##
                + ##"orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>"##)
        // The legend: one swatch per flow.
        var x = SVGLayout.margin
        for flow in layout.flows {
            svg.element(
                "rect",
                [
                    ("x", "\(x)"), ("y", "\(SVGLayout.margin)"), ("width", "14"), ("height", "14"), ("rx", "3"),
                    ("fill", layout.color(of: flow).fill), ("stroke", layout.color(of: flow).stroke),
                ])
            svg.element("text", [("x", "\(x + 20)"), ("y", "\(SVGLayout.margin + 11)"), ("fill", "#222")], text: flow)
            x += 20 + SVGLayout.textWidth(flow) + 18
        }
        for arrow in layout.arrows {
            svg.open("g", [])
            svg.element("title", [], text: "\(arrow.from.id) → \(arrow.to.id): \(arrow.labels.joined(separator: ", "))")
            svg.element(
                "path",
                [
                    ("d", arrow.path), ("fill", "none"), ("stroke", "#555"), ("stroke-width", "1.2"),
                    ("marker-end", "url(#arrow)"),
                ])
            let label = arrow.labels.joined(separator: ", ")
            svg.element(
                "text",
                [
                    ("x", "\(arrow.labelAt.x)"), ("y", "\(arrow.labelAt.y - 3)"), ("text-anchor", "middle"),
                    ("fill", "#333"),
                ],
                text: label.count > 36 ? String(label.prefix(35)) + "…" : label)
            svg.close("g")
        }
        for node in layout.placed {
            let color = layout.color(of: node.node.flow)
            let isHighlighted = node.node == highlighted
            svg.open("g", [("id", "graph-" + node.node.id)])
            svg.element("title", [], text: node.node.id + (isHighlighted ? " (this session's page)" : ""))
            svg.element(
                "rect",
                [
                    ("x", "\(node.x)"), ("y", "\(node.y)"), ("width", "\(node.width)"),
                    ("height", "\(SVGLayout.boxHeight)"), ("rx", "6"), ("fill", isHighlighted ? "#ffd7d5" : color.fill),
                    ("stroke", isHighlighted ? "#b3261e" : color.stroke), ("stroke-width", isHighlighted ? "3" : "1.5"),
                ])
            svg.element(
                "text",
                [
                    ("x", "\(node.x + node.width / 2)"), ("y", "\(node.y + SVGLayout.boxHeight / 2 + 4)"),
                    ("text-anchor", "middle"), ("fill", "#111"),
                ], text: node.node.page)
            svg.close("g")
        }
        svg.close("svg")
        return svg.text
    }
}

/// Where ``FlowGraph/svg(title:highlighted:)`` puts each page and arrow.
private struct SVGLayout {
    static let margin = 16
    static let boxHeight = 28
    static let rowGap = 44
    static let columnGap = 150
    /// Room at the top for the legend and the arrows drawn above the boxes.
    static let top = 96

    /// A page's box.
    struct Placed {
        var node: FlowGraph.Node
        var column: Int
        var x = 0
        var y = 0
        var width = 0
    }

    /// One arrow between two pages, with every step that takes it.
    struct Arrow {
        var from: FlowGraph.Node
        var to: FlowGraph.Node
        var labels: [String]
        var path = ""
        var labelAt = (x: 0, y: 0)
    }

    let flows: [String]
    let placed: [Placed]
    let arrows: [Arrow]
    let width: Int
    let height: Int

    init(_ graph: FlowGraph) {
        let steps = graph.edges.filter { $0.kind == .step && $0.from != $0.to }
        flows = Set(graph.nodes.map(\.flow)).sorted()
        // Columns: how many actions of any kind (tabs and Back count) a page is from the start
        // (or, when it is not known, from the pages no step leads to), breadth first; pages not
        // reached that way stay in the first column.
        var column: [FlowGraph.Node: Int] = [:]
        let entered = Set(steps.map(\.to))
        var queue = graph.start.map { [$0] } ?? graph.nodes.filter { !entered.contains($0) }.sorted()
        if queue.isEmpty, let first = graph.nodes.min() { queue = [first] }
        for node in queue { column[node] = 0 }
        let leaving = Dictionary(grouping: graph.edges.filter { $0.from != $0.to }, by: \.from)
        var next = 0
        while next < queue.count {
            let node = queue[next]
            next += 1
            for edge in leaving[node, default: []].sorted(by: { ($0.kind, $0.to) < ($1.kind, $1.to) })
            where column[edge.to] == nil {
                column[edge.to] = column[node]! + 1
                queue.append(edge.to)
            }
        }
        for node in graph.nodes where column[node] == nil { column[node] = 0 }
        // Boxes: each column's pages by flow, then name, top to bottom.
        let columns = Dictionary(grouping: graph.nodes, by: { column[$0]! })
        var placed: [Placed] = []
        var x = Self.margin
        var height = Self.top
        for index in columns.keys.sorted() {
            let nodes = columns[index, default: []].sorted()
            let width = nodes.map { max(70, Self.textWidth($0.page) + 24) }.max() ?? 70
            for (row, node) in nodes.enumerated() {
                let y = Self.top + row * (Self.boxHeight + Self.rowGap)
                placed.append(Placed(node: node, column: index, x: x, y: y, width: width))
                height = max(height, y + Self.boxHeight + Self.margin)
            }
            x += width + Self.columnGap
        }
        self.placed = placed
        let boxes = Dictionary(uniqueKeysWithValues: placed.map { ($0.node, $0) })
        // Arrows: forward ones from the right side to the left side, within a column a bow to
        // the side, back to an earlier column over the top.
        var arrows: [Arrow] = []
        for (pair, edges) in Dictionary(grouping: steps, by: { [$0.from, $0.to] }) {
            guard let from = boxes[pair[0]], let to = boxes[pair[1]] else { continue }
            var arrow = Arrow(from: from.node, to: to.node, labels: Set(edges.map(\.label)).sorted())
            let (fromY, toY) = (from.y + Self.boxHeight / 2, to.y + Self.boxHeight / 2)
            let points: [(x: Int, y: Int)]
            if to.column > from.column {
                // Forward: from the right side to the left side; the label nearer the target,
                // where arrows from one page have spread apart.
                let (x0, x3) = (from.x + from.width, to.x)
                let bend = (x3 - x0) / 2
                points = [(x0, fromY), (x0 + bend, fromY), (x3 - bend, toY), (x3, toY)]
                arrow.labelAt = Self.point(at: 0.65, on: points)
            } else if to.column == from.column {
                // Down the same column: a bow out to the right; up: to the left.
                let down = to.y > from.y
                let x0 = down ? from.x + from.width : from.x
                let bow = down ? x0 + 36 + abs(toY - fromY) / 6 : x0 - 36 - abs(toY - fromY) / 6
                points = [(x0, fromY), (bow, fromY), (bow, toY), (x0, toY)]
                let middle = Self.point(at: 0.5, on: points)
                arrow.labelAt = (
                    middle.x + (down ? 4 : -4) + (down ? 1 : -1) * Self.textWidth(arrow.labels[0]) / 2, middle.y + 4
                )
            } else {
                // Back to an earlier column: over the top.
                let (x0, x3) = (from.x + from.width / 2, to.x + to.width / 2)
                let lift = min(from.y, to.y) - 24 - 8 * abs(from.column - to.column)
                points = [(x0, from.y), (x0, lift), (x3, lift), (x3, to.y)]
                arrow.labelAt = Self.point(at: 0.5, on: points)
            }
            arrow.path =
                "M\(points[0].x),\(points[0].y) C\(points[1].x),\(points[1].y) \(points[2].x),\(points[2].y) \(points[3].x),\(points[3].y)"
            arrows.append(arrow)
        }
        self.arrows = arrows.sorted { ($0.from, $0.to) < ($1.from, $1.to) }
        let legend = Self.margin + flows.reduce(0) { $0 + 38 + Self.textWidth($1) }
        width = max(x - Self.columnGap + Self.margin, legend)
        self.height = height
    }

    /// The fill and outline of `flow`'s pages: light fills, dark text stays readable on each.
    func color(of flow: String) -> (fill: String, stroke: String) {
        let palette = [
            ("#e3f0ff", "#2f6db5"), ("#e6f6e8", "#2e7d32"), ("#fff3d6", "#a06a00"), ("#f1e7fb", "#7b3fb0"),
            ("#e0f5f5", "#00796b"), ("#fde7ef", "#ad1457"), ("#ececec", "#555555"),
        ]
        return palette[(flows.firstIndex(of: flow) ?? 0) % palette.count]
    }

    /// The point at `t` (0...1) on the cubic Bézier curve of `points`.
    static func point(at t: Double, on points: [(x: Int, y: Int)]) -> (x: Int, y: Int) {
        let u = 1 - t
        let weights = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t]
        let x = zip(weights, points).reduce(0.0) { $0 + $1.0 * Double($1.1.x) }
        let y = zip(weights, points).reduce(0.0) { $0 + $1.0 * Double($1.1.y) }
        return (Int(x.rounded()), Int(y.rounded()))
    }

    /// About how wide `text` is at 12 px.
    static func textWidth(_ text: String) -> Int { text.count * 7 }
}

/// SVG markup, its text escaped.
private struct SVGText {
    var text = ""

    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        text += "<" + name
        for (key, value) in attributes { text += " \(key)=\"\(Self.escape(value))\"" }
        text += ">"
    }

    mutating func close(_ name: String) { text += "</\(name)>" }

    mutating func element(_ name: String, _ attributes: [(String, String)], text content: String? = nil) {
        open(name, attributes)
        if let content { text += Self.escape(content) }
        close(name)
    }

    mutating func raw(_ markup: String) { text += markup }

    static func escape(_ text: String) -> String { PageComposer.escape(text) }
}
