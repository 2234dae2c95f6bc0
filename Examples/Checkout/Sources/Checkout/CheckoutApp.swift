import FlowServer

/// The checkout example as a web app: one flow, seven pages, the cart as app data, the catalog
/// and the order book as services, the order deep link, and routes and middleware of its own (a
/// product search in JSON, the payment provider's webhook, request ids).
public enum CheckoutApp {
    /// Every page type.
    public static let pages: [any WebPage.Type] = [
        CartPage.self, AddressPage.self, ShippingPage.self, PaymentPage.self, ReviewPage.self, OrderPage.self,
        HelpPage.self, NoticePage.self,
    ]

    /// The app's navigation: the shop flow, started on the cart.
    public static func flows() throws -> FlowApp<CheckoutStep> {
        try FlowApp(
            root: ShopFlow(), stepper: OneStepper(withSingleStep: CheckoutStep.cartIsRequired), flows: [ShopFlow.self],
            pages: pages,
            appData: CheckoutSession.self)
    }

    /// The services flows and pages read: the catalog and the order book.
    public static func services(catalog: Catalog = .shop, orders: OrderBook = OrderBook()) -> FlowContext {
        var context = FlowContext()
        context.register(catalog)
        context.register(orders)
        return context
    }

    /// The web app, with `orders` as its order book; the payment webhook checks calls with
    /// `paymentSecret` (`nil`: it refuses them).
    public static func webApp(orders: OrderBook = OrderBook(), paymentSecret: String? = nil) throws
        -> WebApp<CheckoutStep>
    {
        let services = services(orders: orders)
        return try WebApp(
            flows: try flows(), pages: pages,
            deepLinks: [
                // An order's link works in any browser: a session without the page gets it pushed.
                DeepLinkRoute("/orders/{id}") { values, services in
                    guard let id = values.text("id"), services[OrderBook.self]?.order(id) != nil else { return nil }
                    return .orderIsPicked(id: id)
                },
                DeepLinkRoute("/help") { _, _ in .helpIsRequired },
            ],
            context: services, siteName: "FlowServer Checkout",
            routeCollections: [
                ShopRoutes(catalog: .shop, payments: PaymentWebhook(secret: paymentSecret, orders: orders))
            ],
            middleware: [RequestIDMiddleware()])
    }
}
