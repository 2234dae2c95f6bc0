/// One loaded template: its compiled nodes and a size estimate for the output buffer.
final class CompiledTemplate: Sendable {
    let name: String
    let file: String
    let nodes: [Node]
    let estimatedSize: Int

    init(name: String, file: String, nodes: [Node]) {
        self.name = name
        self.file = file
        self.nodes = nodes
        estimatedSize = 512 + Self.staticBytes(nodes) * 2
    }

    private static func staticBytes(_ nodes: [Node]) -> Int {
        nodes.reduce(0) { total, node in
            switch node {
            case .text(let bytes, _): total + bytes.count
            case .section(_, let children, _), .block(_, let children, _): total + staticBytes(children)
            default: total
            }
        }
    }
}
