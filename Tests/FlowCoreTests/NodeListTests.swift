import Testing

@testable import FlowCore

@Suite("A flow's children in chunks")
struct NodeListTests {
    /// A page node for movie `id`, its node id the same.
    static func movie(_ id: Int) -> TreeNode {
        .page(
            PageNode(
                id: NodeID(rawValue: id), page: AnyPage(MoviePage(id: id)), allowStepWhenNotPresented: false,
                allowStepWhenDismissed: false, embedded: []))
    }

    static func ids(_ list: NodeList) -> [Int] { list.map(\.id.rawValue) }

    @Test("appends, removals at the end and anywhere, and writes in place keep the order an array has, across chunks")
    func behavesAsAnArray() {
        var list = NodeList()
        var array: [TreeNode] = []
        #expect(list.isEmpty && list.first == nil)
        for id in 1...100 {
            list.append(Self.movie(id))
            array.append(Self.movie(id))
            #expect(list.count == id && list.last?.id.rawValue == id)
        }
        #expect(Array(list) == array && Self.ids(list) == Array(1...100))
        #expect(
            list[NodeList.chunkSize - 1].id.rawValue == NodeList.chunkSize
                && list[NodeList.chunkSize].id.rawValue == NodeList.chunkSize + 1)

        for newCount in [99, 96, 64, 63, 33, 32, 31, 1, 0] {
            list.removeSubrange(newCount...)
            #expect(Self.ids(list) == Array(1...100).prefix(newCount).map { $0 })
        }
        list = NodeList((1...70).map(Self.movie))
        array = (1...70).map(Self.movie)
        list.remove(at: 5)
        array.remove(at: 5)
        list.insert(Self.movie(500), at: 40)
        array.insert(Self.movie(500), at: 40)
        list[64] = Self.movie(600)
        array[64] = Self.movie(600)
        list.replaceSubrange(10..<12, with: [Self.movie(700)])
        array.replaceSubrange(10..<12, with: [Self.movie(700)])
        #expect(Self.ids(list) == array.map(\.id.rawValue))
        #expect(list.lastIndex { $0.id.rawValue == 500 } == 39)
    }

    @Test("lists with the same nodes are equal and hash the same, however they were built")
    func equalityIgnoresHistory() {
        var grown = NodeList((1...80).map(Self.movie))
        grown.removeSubrange(40...)
        grown.append(Self.movie(41))
        var rebuilt = NodeList((1...40).map(Self.movie))
        rebuilt.remove(at: 0)
        rebuilt.insert(Self.movie(1), at: 0)
        rebuilt.append(Self.movie(41))
        #expect(grown == rebuilt && grown.hashValue == rebuilt.hashValue)
        #expect(grown == NodeList((1...41).map(Self.movie)))
        #expect(grown != NodeList((1...40).map(Self.movie)))
    }

    @Test("a list is a value: changing a copy leaves the original as it was")
    func copiesAreIndependent() {
        let original = NodeList((1...70).map(Self.movie))
        var copy = original
        copy.append(Self.movie(71))
        copy[3] = Self.movie(300)
        copy.removeSubrange(20...)
        #expect(Self.ids(original) == Array(1...70))
        #expect(Self.ids(copy) == Array(1...3) + [300] + Array(5...20))
    }

    @Test(
        "the start a list shares with an earlier one counts whole chunks it shares, and stops at a key of 0 or a changed node"
    )
    func sharedStart() {
        let earlier = NodeList((1...70).map(Self.movie))
        let keys = earlier.map(\.reuseKey)
        #expect(!keys.contains(0))
        var pushed = earlier
        pushed.append(Self.movie(71))
        #expect(pushed.countOfPrefix(withKeys: keys, of: earlier) == 70)

        // A node changed in the first chunk: the second chunk is still shared, but the count
        // stops at the change.
        var changed = earlier
        changed[10] = Self.movie(500)
        #expect(changed.countOfPrefix(withKeys: keys, of: earlier) == 10)

        // A key of 0 (a node the earlier encoding did not record) inside a shared chunk ends the
        // count there, though the chunk is the same storage.
        var unkeyed = keys
        unkeyed[40] = 0
        #expect(pushed.countOfPrefix(withKeys: unkeyed, of: earlier) == 40)

        // Equal nodes in other storage (a list read back) are compared node by node.
        let rebuilt = NodeList((1...70).map(Self.movie))
        #expect(rebuilt.countOfPrefix(withKeys: keys, of: earlier) == 0)
        #expect(earlier.countOfPrefix(withKeys: keys, of: rebuilt) == 70)
    }
}
