import FlowCore
import FlowWeb

/// A placed order, at `/orders/{id}`: after placing it, and from its deep link in any browser.
public struct OrderPage: WebPage {
    public static let name = "order"
    public static let template = "pages/order"
    /// The order's id in the ``OrderBook``.
    public var id: String
    public var path: String { "/orders/\(id)" }
    public var title: String { "Order \(id)" }

    /// The page of order `id`.
    public init(id: String) { self.id = id }

    /// What the order template shows (no summary when the order book no longer has the order).
    public struct Model: Encodable {
        var id: String
        var summary: OrderSummary?
        var shop: String
        var help: String
    }

    public func model(in context: PageContext) throws -> Model {
        Model(
            id: id, summary: context.services[OrderBook.self]?.order(id).map(OrderSummary.init),
            shop: context.link(to: CheckoutStep.cartIsRequired), help: context.link(to: CheckoutStep.helpIsRequired))
    }
}
