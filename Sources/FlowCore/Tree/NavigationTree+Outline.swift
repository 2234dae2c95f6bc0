extension NavigationTree {
    /// The tree as indented text, one node a line: flows as `name#id container`, pages as
    /// `name#id /url`, the top page marked `*`, presented nodes prefixed `presented`, embedded
    /// flows under their page. Stable, so tests can compare whole trees and read the diff.
    ///
    /// ```
    /// app#1 single
    ///   dashboard#2 tabs selected=0
    ///     wishlist#3 stack
    ///       wishlist#4 /wishlist
    ///       movie#9 /movies/42 *
    ///     watched#5 stack
    ///       watched#6 /watched
    /// ```
    public var outline: String {
        var lines: [String] = []
        let topID = top?.id
        func flowLine(_ flow: FlowNode, indent: String, prefix: String) {
            let selection = flow.container == .tabs ? " selected=\(flow.selected)" : ""
            lines.append("\(indent)\(prefix)\(flow.flow.name)#\(flow.id) \(flow.container.rawValue)\(selection)")
            for child in flow.children { nodeLines(child, indent: indent + "  ", prefix: "") }
            if let presented = flow.presented { nodeLines(presented, indent: indent + "  ", prefix: "presented ") }
        }
        func nodeLines(_ node: TreeNode, indent: String, prefix: String) {
            switch node {
            case .flow(let flow):
                flowLine(flow, indent: indent, prefix: prefix)
            case .page(let page):
                lines.append(
                    "\(indent)\(prefix)\(page.page.name)#\(page.id) \(page.url)\(page.id == topID ? " *" : "")")
                for flow in page.embedded { flowLine(flow, indent: indent + "  ", prefix: "embedded ") }
            }
        }
        flowLine(root, indent: "", prefix: "")
        return lines.joined(separator: "\n")
    }
}
