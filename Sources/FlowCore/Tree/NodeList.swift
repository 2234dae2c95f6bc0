/// The children of a flow: a list of nodes kept in chunks of 32, so that a change at
/// its end copies one chunk, not the whole list.
///
/// A tree is a value, and the version a step starts from stays alive beside the one it makes (the
/// session's held copy, its last encoding). An array of a thousand pages shared that way is copied
/// whole by a push or a pop, and the copy freed again at the next step; a list in chunks copies
/// the chunks' references and the last chunk's nodes. Every chunk but the last is full and none is
/// empty, so equal lists have equal chunks.
public struct NodeList: Sendable, Hashable {
    /// How many nodes a chunk holds, a power of two.
    static let chunkSize = 1 << chunkShift
    private static let chunkShift = 5
    private static let offsetMask = chunkSize - 1

    /// The nodes, ``chunkSize`` a chunk: what a walk that must not copy each node reads.
    private(set) var chunks: [[TreeNode]]
    /// How many nodes the list holds.
    public private(set) var count: Int

    /// An empty list.
    public init() {
        chunks = []
        count = 0
    }

    /// Appends `node`: copies the last chunk when another list shares it, never the others.
    public mutating func append(_ node: TreeNode) {
        if count & Self.offsetMask == 0 {
            chunks.append([node])
        } else {
            chunks[chunks.count - 1].append(node)
        }
        count += 1
    }

    /// Removes the nodes from `newCount` on.
    private mutating func truncate(to newCount: Int) {
        guard newCount < count else { return }
        let fullChunks = newCount >> Self.chunkShift
        let rest = newCount & Self.offsetMask
        chunks.removeSubrange((rest == 0 ? fullChunks : fullChunks + 1)...)
        if rest > 0 { chunks[fullChunks].removeSubrange(rest...) }
        count = newCount
    }
}

extension NodeList: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> TreeNode {
        get {
            precondition(position >= 0 && position < count, "NodeList index out of range")
            return chunks[position >> Self.chunkShift][position & Self.offsetMask]
        }
        _modify {
            precondition(position >= 0 && position < count, "NodeList index out of range")
            yield &chunks[position >> Self.chunkShift][position & Self.offsetMask]
        }
    }

    /// Replaces the nodes in `subrange`: a change at the end (a push, a pop, an unwind) copies
    /// at most one chunk; any other change builds the list again.
    public mutating func replaceSubrange<Nodes: Collection>(_ subrange: Range<Int>, with nodes: Nodes)
    where Nodes.Element == TreeNode {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= count, "NodeList range out of bounds")
        if subrange.upperBound == count {
            truncate(to: subrange.lowerBound)
            for node in nodes { append(node) }
        } else {
            var all = Array(self)
            all.replaceSubrange(subrange, with: nodes)
            self = NodeList(all)
        }
    }

    /// The nodes in order, read chunk by chunk.
    public struct Iterator: IteratorProtocol {
        private let chunks: [[TreeNode]]
        private var chunk = 0
        private var offset = 0

        fileprivate init(_ chunks: [[TreeNode]]) { self.chunks = chunks }

        public mutating func next() -> TreeNode? {
            guard chunk < chunks.count else { return nil }
            let node = chunks[chunk][offset]
            offset += 1
            if offset == chunks[chunk].count {
                chunk += 1
                offset = 0
            }
            return node
        }
    }

    public func makeIterator() -> Iterator { Iterator(chunks) }
}

extension NodeList: ExpressibleByArrayLiteral {
    /// A list of `nodes`.
    public init(arrayLiteral nodes: TreeNode...) { self.init(nodes) }
}
