import FlowServer

/// A placed order, at `/orders/{id}`: after placing it, and from its deep link in any browser.
public struct OrderPage: WebPage {
    public static let name = "order"
    public static let template = "pages/order"
    /// The order's id in the ``OrderBook``.
    public var id: String
    public var path: PagePath { "/orders/\(id)" }
    public var title: String { "Order \(id)" }

    /// The page of order `id`.
    public init(id: String) { self.id = id }

    /// What the order template shows (no summary when the order book no longer has the order).
    public struct Model: Encodable {
        var id: String
        var summary: OrderSummary?
        /// Whether the payment provider confirmed the payment (its webhook).
        var paid: Bool
        var shop: String
        var help: String
    }

    public func model(in context: PageContext) throws -> Model {
        let order = context.services[OrderBook.self]?.order(id)
        return Model(
            id: id, summary: order.map(OrderSummary.init), paid: order?.isPaid == true,
            shop: context.link(to: CheckoutStep.cartIsRequired), help: context.link(to: CheckoutStep.helpIsRequired))
    }
}
