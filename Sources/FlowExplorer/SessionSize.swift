import FlowCore
import FlowWeb

/// How large a session is, in the measures its limits count (the app data aside: no path
/// repeats grow it by a fixed amount that the explorer could see).
struct SessionSize: Equatable {
    var nodes: Int
    var stackDepth: Int
    var stateBytes: Int

    init(nodes: Int, stackDepth: Int, stateBytes: Int) {
        self.nodes = nodes
        self.stackDepth = stackDepth
        self.stateBytes = stateBytes
    }

    /// The size of a session with a tree of `size` stored in `stateBytes`.
    init(_ size: TreeSize, stateBytes: Int) {
        self.init(nodes: size.nodes, stackDepth: size.deepestStack, stateBytes: stateBytes)
    }

    /// The measure `limit` counts (`0` for the app data's bytes).
    subscript(limit: SessionLimit) -> Int {
        switch limit {
        case .nodes: nodes
        case .stackDepth: stackDepth
        case .stateBytes: stateBytes
        case .appDataBytes: 0
        }
    }

    /// What grew from `other` to this one.
    func minus(_ other: SessionSize) -> SessionSize {
        SessionSize(
            nodes: nodes - other.nodes, stackDepth: stackDepth - other.stackDepth,
            stateBytes: stateBytes - other.stateBytes)
    }
}
