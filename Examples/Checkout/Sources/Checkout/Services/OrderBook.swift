import Synchronization

/// Placed orders, by id: the service the flow's `adapt` writes to when an order is placed, and
/// that the order page and its deep link read. It lives in the process (a real app keeps orders
/// in its database): an order outlives the session that placed it, so `/orders/{id}` works in a
/// fresh browser.
public final class OrderBook: Sendable {
    /// A placed order: what it was made of when placed.
    public struct Order: Sendable, Hashable {
        /// Its id: random, so that knowing one order's link tells nothing of another's.
        public var id: String
        /// The lines, with names and prices as they were.
        public var lines: [Line]
        /// Where it goes.
        public var address: Address
        /// The shipping method's name and price.
        public var shipping: Catalog.ShippingMethod
        /// The payment method's name.
        public var payment: Catalog.PaymentMethod
        /// Where the receipt goes.
        public var email: String
        /// Whether the payment provider told us (its webhook) that the order is paid.
        public var isPaid = false

        /// What it costs in cents, shipping included.
        public var total: Int { lines.reduce(shipping.price) { $0 + $1.price * $1.quantity } }

        /// A product as it was ordered.
        public struct Line: Sendable, Hashable {
            /// The product's name.
            public var name: String
            /// How many.
            public var quantity: Int
            /// Its price in cents, each.
            public var price: Int

            /// `quantity` of `name` at `price` cents each.
            public init(name: String, quantity: Int, price: Int) {
                self.name = name
                self.quantity = quantity
                self.price = price
            }
        }
    }

    /// Why an order cannot be placed.
    public enum PlacementError: Error, Sendable, Equatable {
        /// The cart is empty.
        case emptyCart
        /// The address, shipping or payment is missing or unknown.
        case incomplete
    }

    private let orders = Mutex<[String: Order]>([:])
    private let newID: @Sendable () -> String

    /// An empty order book; `newID` makes the ids of new orders (random by default; tests give
    /// a predictable sequence).
    public init(newID: @escaping @Sendable () -> String = OrderBook.randomID) {
        self.newID = newID
    }

    /// The order with `id`.
    public func order(_ id: String) -> Order? { orders.withLock { $0[id] } }

    /// Marks order `id` paid; `false` when there is no such order.
    public func markPaid(_ id: String) -> Bool {
        orders.withLock { orders in
            guard orders[id] != nil else { return false }
            orders[id]?.isPaid = true
            return true
        }
    }

    /// How many orders it holds.
    public var count: Int { orders.withLock { $0.count } }

    /// Places the order `session` describes, priced from `catalog`; returns its id.
    public func place(_ session: CheckoutSession, catalog: Catalog) throws(PlacementError) -> String {
        guard !session.cart.isEmpty else { throw .emptyCart }
        guard let address = session.address, let shipping = session.shipping.flatMap(catalog.shippingMethod),
            let payment = session.payment, let method = catalog.paymentMethod(payment.method)
        else { throw .incomplete }
        let lines = session.cart.compactMap { line in
            catalog.product(line.product).map { Order.Line(name: $0.name, quantity: line.quantity, price: $0.price) }
        }
        return orders.withLock { orders in
            var id = newID()
            while orders[id] != nil { id = newID() }
            orders[id] = Order(
                id: id, lines: lines, address: address, shipping: shipping, payment: method, email: payment.email)
            return id
        }
    }

    /// Ten random characters from an alphabet without look-alikes (`K7QX2M9TRB`).
    public static func randomID() -> String {
        let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] })
    }
}
