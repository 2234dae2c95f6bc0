import FlowServer

/// The cart: the products on sale, what is in the cart, and the way to checkout. The bottom of
/// the stack.
public struct CartPage: WebPage {
    public static let name = "cart"
    public static let template = "pages/cart"
    public var path: PagePath { "/cart" }
    public var title: String { "Your cart" }

    /// A new cart page.
    public init() {}

    /// What the cart template shows.
    public struct Model: Encodable {
        /// A product on sale, with the link that adds it.
        struct Product: Encodable {
            var name: String
            var price: String
            var add: String
        }

        /// A line of the cart, with links to add or remove one.
        struct Line: Encodable {
            var name: String
            var quantity: Int
            var total: String
            var add: String
            var remove: String
        }

        var products: [Product]
        var lines: [Line]
        var hasLines: Bool
        var subtotal: String
        var checkout: String
        var help: String
        var orders: [String]
        var hasOrders: Bool
    }

    public func model(in context: PageContext) throws -> Model {
        let catalog = context.services.catalog
        let session = context.services.appData(CheckoutSession.self)
        return Model(
            products: catalog.products.map { product in
                Model.Product(
                    name: product.name, price: euros(product.price),
                    add: context.link(to: CheckoutStep.productIsAdded(id: product.id)))
            },
            lines: session.cart.compactMap { line in
                catalog.product(line.product).map { product in
                    Model.Line(
                        name: product.name, quantity: line.quantity, total: euros(product.price * line.quantity),
                        add: context.link(to: CheckoutStep.productIsAdded(id: product.id)),
                        remove: context.link(to: CheckoutStep.productIsRemoved(id: product.id)))
                }
            },
            hasLines: !session.cart.isEmpty,
            subtotal: euros(catalog.subtotal(of: session.cart)),
            checkout: context.link(to: CheckoutStep.checkoutIsRequired),
            help: context.link(to: CheckoutStep.helpIsRequired), orders: session.orders,
            hasOrders: !session.orders.isEmpty)
    }
}
