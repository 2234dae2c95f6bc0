import Checkout
import FlowTesting
import Foundation
import Testing

@Suite("The flow explorer on the checkout")
struct ExplorerTests {
    @Test("every state within the bounds renders, replays and leads on; every page and route is reached")
    func wholeCheckout() async throws {
        // One order placed beforehand, so that its deep link has an order to show from the start.
        let orders = OrderBook()
        let placed = try orders.place(.readyToOrder, catalog: .shop)
        var samples = ExplorationSamples()
        samples.deepLinks["/orders/{id}"] = ["/orders/\(placed)"]
        samples.forms["addressIsEntered"] = [
            "name": "Grace Hopper", "street": "7 Compiler Way", "postcode": "20500", "city": "Arlington",
        ]
        let explorer = try FlowExplorer(
            app: try CheckoutApp.webApp(orders: orders), templatesDirectory: CheckoutPageTests.templates,
            samples: samples, bounds: ExplorationBounds(depth: 8, states: 5_000, linksPerStep: 2))
        let report = try await explorer.explore()
        print("explorer, checkout: \(report.summary)")
        report.expectNoFindings()
        #expect(!report.truncated, "the state bound stopped it: raise it, or lower the depth")
        let dot = report.graph.dot()
        #expect(dot.contains("\"shop.review\" -> \"shop.order\""), "placing an order shows it:\n\(dot)")
    }
}
