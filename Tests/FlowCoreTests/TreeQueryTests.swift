import FlowCore
import FlowTesting
import Testing

@Suite("Tree queries")
struct TreeQueryTests {
    @Test("path and ancestry: the flows from the root down to a node, each with how the next node hangs from it")
    func pathAndAncestry() async throws {
        let store = try await startedStore()
        try await store.send(
            .aboutIsRequired, from: 6, outcome: .navigated, actions: ["present about#13"],
            tree:
                startedTree
                .replacingOccurrences(
                    of: "list#6 /wishlist *", with: "list#6 /wishlist\n      presented about#13 /about *"))
        let tree = store.tree
        let expected: [NodeID: [String]] = [
            1: [],
            6: ["1 child(0)", "2 child(0)", "3 child(0)"],
            13: ["1 child(0)", "2 child(0)", "3 presented"],
            7: ["1 child(0)", "2 child(1)", "4 child(0)"],
            12: ["1 child(0)", "2 child(2)", "5 child(0)", "10 child(0)"],
        ]
        for (id, path) in expected {
            let found = try #require(tree.path(to: id), "node \(id)")
            #expect(found.map { "\($0.flow) \($0.via)" } == path, "node \(id)")
            let ancestry = try #require(tree.ancestry(of: id), "node \(id)")
            #expect(ancestry.map { "\($0.flow.id) \($0.via)" } == path, "node \(id)")
        }
        #expect(tree.path(to: 99) == nil)
        #expect(tree.ancestry(of: 99) == nil)

        // The top page with its path in one walk; passing over the presenting flow's modal
        // gives the page under it, with that page's path.
        var path: [(flow: FlowNode, via: FlowCore.Attachment)] = []
        #expect(tree.root.topPage(path: &path)?.id == 13)
        #expect(path.map { "\($0.flow.id) \($0.via)" } == expected[13])
        let presenter = try #require(tree.flow(3))
        var below: [(flow: FlowNode, via: FlowCore.Attachment)] = []
        #expect(presenter.topPage(ignoringPresented: true, path: &below)?.id == 6)
        #expect(below.map { "\($0.flow.id) \($0.via)" } == ["3 child(0)"])
    }
}
