import FlowCore
import Testing

@testable import FlowWeb

@Suite("Step links")
struct StepLinkTests {
    @Test(
        "a link is its step's part, then the page's node and the rendering's id",
        arguments: [
            (1, "/_step/itemIsPicked?id=7&_from=1&_r=00ff"),
            (10, "/_step/itemIsPicked?id=7&_from=10&_r=00ff"),
            (987_654_321, "/_step/itemIsPicked?id=7&_from=987654321&_r=00ff"),
            (0, "/_step/itemIsPicked?id=7&_from=0&_r=00ff"),
            (-42, "/_step/itemIsPicked?id=7&_from=-42&_r=00ff"),
        ])
    func linkFields(node: Int, expected: String) {
        #expect(PageContext.link("/_step/itemIsPicked?id=7&", from: node, render: "00ff") == expected)
    }

    @Test("a step's link through a page context, with a non-ASCII parameter")
    func throughContext() {
        let context = PageContext(
            services: FlowContext(), node: NodeID(rawValue: 12), renderID: "0123456789abcdef", csrfToken: "t")
        #expect(
            context.link(to: WebStep.greet(name: "Zoë", times: 2))
                == "/_step/greet?name=Zo%C3%AB&times=2&_from=12&_r=0123456789abcdef")
        #expect(context.link(to: WebStep.noop) == "/_step/noop?_from=12&_r=0123456789abcdef")
    }
}
