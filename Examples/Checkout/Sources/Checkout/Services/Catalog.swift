/// The products on sale and the shipping methods: a service the app registers in its
/// `FlowContext`, read by flows and pages.
public struct Catalog: Sendable {
    /// A product.
    public struct Product: Sendable, Hashable {
        /// Its id, used in steps (`productIsAdded?id=tea`).
        public var id: String
        /// Its name.
        public var name: String
        /// Its price in cents.
        public var price: Int
    }

    /// A way to ship an order.
    public struct ShippingMethod: Sendable, Hashable {
        /// Its id, the value of the shipping form's choice.
        public var id: String
        /// What the form says.
        public var name: String
        /// Its price in cents.
        public var price: Int
    }

    /// A way to pay.
    public struct PaymentMethod: Sendable, Hashable {
        /// Its id, the value of the payment form's choice.
        public var id: String
        /// What the form says.
        public var name: String
    }

    /// The products, in the order the cart page lists them.
    public var products: [Product]
    /// The shipping methods, the default first.
    public var shippingMethods: [ShippingMethod]
    /// The payment methods, the default first.
    public var paymentMethods: [PaymentMethod]

    /// A catalog.
    public init(products: [Product], shippingMethods: [ShippingMethod], paymentMethods: [PaymentMethod]) {
        self.products = products
        self.shippingMethods = shippingMethods
        self.paymentMethods = paymentMethods
    }

    /// The product with `id`.
    public func product(_ id: String) -> Product? { products.first { $0.id == id } }
    /// The shipping method with `id`.
    public func shippingMethod(_ id: String) -> ShippingMethod? { shippingMethods.first { $0.id == id } }
    /// The payment method with `id`.
    public func paymentMethod(_ id: String) -> PaymentMethod? { paymentMethods.first { $0.id == id } }

    /// What the lines of `cart` cost together, in cents (unknown products count nothing).
    public func subtotal(of cart: [CartLine]) -> Int {
        cart.reduce(0) { $0 + (product($1.product)?.price ?? 0) * $1.quantity }
    }

    /// The example's shop.
    public static let shop = Catalog(
        products: [
            Product(id: "tea", name: "Green tea, 100 g", price: 650),
            Product(id: "mug", name: "Stoneware mug", price: 1400),
            Product(id: "kettle", name: "Gooseneck kettle", price: 5900),
        ],
        shippingMethods: [
            ShippingMethod(id: "standard", name: "Standard, 3–5 days", price: 0),
            ShippingMethod(id: "express", name: "Express, next day", price: 990),
        ],
        paymentMethods: [
            PaymentMethod(id: "invoice", name: "Invoice, pay within 30 days"),
            PaymentMethod(id: "card-on-delivery", name: "Card on delivery"),
        ])
}

/// Prices as the pages show them: `€14.00`.
public func euros(_ cents: Int) -> String {
    let sign = cents < 0 ? "-" : ""
    let value = abs(cents)
    let fraction = value % 100
    return "\(sign)€\(value / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
