import Checkout
import FlowServer
import FlowTesting
import Testing

/// The checkout's navigation without HTTP: each step with the whole tree it must leave, the
/// actions and the outcome (FlowTestStore also checks after every step that the tree is valid,
/// survives encoding, and is rebuilt by replaying the history).
@Suite("Shop flow")
struct ShopFlowTests {
    /// A store of the app with its own order book.
    private func start(orders: OrderBook = OrderBook()) async throws -> FlowTestStore<CheckoutStep> {
        try await FlowTestStore(app: CheckoutApp.flows(), context: CheckoutApp.services(orders: orders))
    }

    /// Fills the cart and goes through the wizard up to the review page.
    private func fillAndReview(_ store: FlowTestStore<CheckoutStep>) async throws {
        try await store.send(
            .productIsAdded(id: "tea"), from: store.top, outcome: .unchanged,
            tree: """
                shop#1 stack
                  cart#2 /cart *
                """)
        try await store.send(
            .productIsAdded(id: "tea"), from: store.top, outcome: .unchanged,
            tree: """
                shop#1 stack
                  cart#2 /cart *
                """)
        try await store.send(
            .checkoutIsRequired, from: store.top, actions: ["push address#3"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  address#3 /checkout/address *
                """)
        try await store.send(
            .addressIsEntered(name: "Ada Lovelace", street: "1 Analytical Row", postcode: "N1 9GU", city: "London"),
            from: store.top,
            actions: ["push shipping#4"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  address#3 /checkout/address
                  shipping#4 /checkout/shipping *
                """)
        try await store.send(
            .shippingIsChosen(method: "express"), from: store.top, actions: ["push payment#5"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  address#3 /checkout/address
                  shipping#4 /checkout/shipping
                  payment#5 /checkout/payment *
                """)
        try await store.send(
            .paymentIsChosen(method: "invoice", email: "ada@example.com"), from: store.top, actions: ["push review#6"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  address#3 /checkout/address
                  shipping#4 /checkout/shipping
                  payment#5 /checkout/payment
                  review#6 /checkout/review *
                """)
    }

    @Test("the cart is kept as app data; the tree does not change")
    func cart() async throws {
        let store = try await start()
        try await store.send(
            .productIsAdded(id: "mug"), from: store.top, outcome: .unchanged, actions: [],
            tree: "shop#1 stack\n  cart#2 /cart *")
        try await store.send(
            .productIsAdded(id: "kettle"), from: store.top, outcome: .unchanged, tree: "shop#1 stack\n  cart#2 /cart *")
        try await store.send(
            .productIsAdded(id: "mug"), from: store.top, outcome: .unchanged, tree: "shop#1 stack\n  cart#2 /cart *")
        try await store.send(
            .productIsRemoved(id: "kettle"), from: store.top, outcome: .unchanged,
            tree: "shop#1 stack\n  cart#2 /cart *")
        #expect(store.appData(CheckoutSession.self)?.cart == [CartLine(product: "mug", quantity: 2)])
        // A product the catalog does not have is not handled by anyone.
        try await store.send(
            .productIsAdded(id: "caviar"), from: store.top, outcome: .ignored, tree: "shop#1 stack\n  cart#2 /cart *")
        #expect(store.appData(CheckoutSession.self)?.cart == [CartLine(product: "mug", quantity: 2)])
    }

    @Test("checkout with an empty cart is adapted into a notice over the cart")
    func emptyCart() async throws {
        let store = try await start()
        let navigation = try await store.send(
            .checkoutIsRequired, from: store.top, outcome: .adapted, actions: ["present notice#3"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  presented notice#3 /notice *
                """)
        #expect(navigation.adaptedStep == .cartIsEmpty)
        try await store.visit(
            try #require(store.page(at: "/cart")), actions: ["dismiss notice#3"], tree: "shop#1 stack\n  cart#2 /cart *"
        )
    }

    @Test("the whole purchase: the order book gets the order once, the stack becomes cart and order")
    func purchase() async throws {
        let orders = OrderBook(newID: { "ORDER00001" })
        let store = try await start(orders: orders)
        try await fillAndReview(store)
        let placed = try await store.send(
            .orderIsPlaced, from: store.top, outcome: .adapted,
            tree: """
                shop#1 stack
                  cart#7 /cart
                  order#8 /orders/ORDER00001 *
                """)
        let id = "ORDER00001"
        #expect(placed.adaptedStep == .orderIsConfirmed(id: id))
        // Replaying the history (which FlowTestStore did after the step) placed nothing again.
        #expect(orders.count == 1)
        let order = try #require(orders.order(id))
        #expect(order.lines == [OrderBook.Order.Line(name: "Green tea, 100 g", quantity: 2, price: 650)])
        #expect(order.total == 2 * 650 + 990 && order.email == "ada@example.com" && order.address.city == "London")
        let session = try #require(store.appData(CheckoutSession.self))
        #expect(session.cart.isEmpty && session.address == nil && session.orders == [id])
        // Continue shopping: back to the cart, the order page gone.
        try await store.send(
            .cartIsRequired, from: store.top, actions: ["pop order#8"], tree: "shop#1 stack\n  cart#7 /cart *")
    }

    @Test("Back from the review to the address pops the later steps; entering it again pushes them anew")
    func back() async throws {
        let store = try await start()
        try await fillAndReview(store)
        try await store.visit(
            try #require(store.page(at: "/checkout/address")),
            actions: ["pop review#6", "pop payment#5", "pop shipping#4"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  address#3 /checkout/address *
                """)
        // What was entered stays in the app data, for the forms to show again.
        #expect(store.appData(CheckoutSession.self)?.shipping == "express")
        try await store.send(
            .addressIsEntered(name: "Ada Lovelace", street: "2 Difference Lane", postcode: "N1 9GU", city: "London"),
            from: store.top,
            actions: ["push shipping#7"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  address#3 /checkout/address
                  shipping#7 /checkout/shipping *
                """)
        #expect(store.appData(CheckoutSession.self)?.address?.street == "2 Difference Lane")
    }

    @Test("a confirmation nobody placed, or shipping before an address, is refused")
    func forgedSteps() async throws {
        let orders = OrderBook()
        let store = try await start(orders: orders)
        try await store.send(.productIsAdded(id: "tea"), from: store.top, tree: "shop#1 stack\n  cart#2 /cart *")
        try await store.send(
            .orderIsConfirmed(id: "FORGED1234"), from: store.top, outcome: .rejected, actions: [],
            tree: "shop#1 stack\n  cart#2 /cart *")
        try await store.send(
            .shippingIsChosen(method: "express"), from: store.top, outcome: .ignored,
            tree: "shop#1 stack\n  cart#2 /cart *")
        // Placing an order without address, shipping and payment places nothing.
        try await store.send(
            .orderIsPlaced, from: store.top, outcome: .rejected, tree: "shop#1 stack\n  cart#2 /cart *")
        #expect(orders.count == 0 && store.appData(CheckoutSession.self)?.cart.count == 1)
    }

    @Test("an order's deep link pushes its page when the order book has it; help is presented over any page")
    func deepLinkAndHelp() async throws {
        let orders = OrderBook()
        let id = try orders.place(.readyToOrder, catalog: .shop)
        let store = try await start(orders: orders)
        try await store.send(
            .orderIsPicked(id: "NOSUCHORDR"), outcome: .ignored, tree: "shop#1 stack\n  cart#2 /cart *")
        try await store.send(
            .orderIsPicked(id: id), actions: ["push order#3"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  order#3 /orders/\(id) *
                """)
        try await store.send(
            .helpIsRequired, from: store.top, actions: ["present help#4"],
            tree: """
                shop#1 stack
                  cart#2 /cart
                  order#3 /orders/\(id)
                  presented help#4 /help *
                """)
    }
}
