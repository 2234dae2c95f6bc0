import FlowServer

/// What the review page and the order page both show of an order: its lines, where it goes,
/// how it ships and is paid, and the total (`Templates/partials/summary.mustache`).
struct OrderSummary: Encodable {
    struct Line: Encodable {
        var name: String
        var quantity: Int
        var total: String
    }

    var lines: [Line]
    var address: Address?
    var shipping: String
    var payment: String
    var email: String
    var total: String

    /// The order a session is about to place, priced from `catalog`.
    init(_ session: CheckoutSession, catalog: Catalog) {
        let shipping = session.shipping.flatMap(catalog.shippingMethod)
        lines = session.cart.compactMap { line in
            catalog.product(line.product).map {
                Line(name: $0.name, quantity: line.quantity, total: euros($0.price * line.quantity))
            }
        }
        address = session.address
        self.shipping = shipping.map(Self.describe) ?? "not chosen"
        payment = session.payment.flatMap { catalog.paymentMethod($0.method)?.name } ?? "not chosen"
        email = session.payment?.email ?? ""
        total = euros(catalog.subtotal(of: session.cart) + (shipping?.price ?? 0))
    }

    /// A placed order, as it was placed.
    init(_ order: OrderBook.Order) {
        lines = order.lines.map { Line(name: $0.name, quantity: $0.quantity, total: euros($0.price * $0.quantity)) }
        address = order.address
        shipping = Self.describe(order.shipping)
        payment = order.payment.name
        email = order.email
        total = euros(order.total)
    }

    private static func describe(_ method: Catalog.ShippingMethod) -> String {
        "\(method.name) (\(method.price == 0 ? "free" : euros(method.price)))"
    }
}
