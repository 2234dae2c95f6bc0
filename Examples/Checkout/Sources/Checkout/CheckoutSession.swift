import FlowServer

/// What the checkout keeps per session beside its tree (its ``FlowCore/AppData``): the cart and
/// what the wizard has gathered so far. Flows change it in `navigate`; pages read it.
public struct CheckoutSession: AppData {
    /// The cart's lines, in the order products were first added.
    public var cart: [CartLine] = []
    /// The delivery address, once entered.
    public var address: Address?
    /// The chosen shipping method's id, once chosen.
    public var shipping: String?
    /// The chosen payment, once chosen.
    public var payment: Payment?
    /// The orders this session placed, oldest first.
    public var orders: [String] = []

    /// An empty cart.
    public init() {}

    /// Whether the cart holds nothing.
    public var cartIsEmpty: Bool { cart.isEmpty }

    /// Adds one of `product`.
    mutating func add(_ product: String) {
        if let index = cart.firstIndex(where: { $0.product == product }) {
            cart[index].quantity += 1
        } else {
            cart.append(CartLine(product: product, quantity: 1))
        }
    }

    /// Removes one of `product` (its line when it was the last).
    mutating func remove(_ product: String) {
        guard let index = cart.firstIndex(where: { $0.product == product }) else { return }
        cart[index].quantity -= 1
        if cart[index].quantity == 0 { cart.remove(at: index) }
    }

    /// Forgets the cart and the wizard's answers (after an order), keeping the orders.
    mutating func startOver() {
        let orders = orders
        self = CheckoutSession()
        self.orders = orders
    }
}

/// A product and how many of it.
public struct CartLine: Codable, Sendable, Hashable {
    /// The product's id in the ``Catalog``.
    public var product: String
    /// How many, 1 or more.
    public var quantity: Int

    /// `quantity` of `product`.
    public init(product: String, quantity: Int) {
        self.product = product
        self.quantity = quantity
    }
}

/// Where an order goes.
public struct Address: Codable, Sendable, Hashable {
    /// Who receives it.
    public var name: String
    /// Street and number.
    public var street: String
    /// Postal code.
    public var postcode: String
    /// City.
    public var city: String

    /// An address.
    public init(name: String, street: String, postcode: String, city: String) {
        self.name = name
        self.street = street
        self.postcode = postcode
        self.city = city
    }
}

/// How an order is paid. A real app hands card details to its payment provider in the browser
/// and keeps only the provider's token: steps and app data are stored in the session's history.
public struct Payment: Codable, Sendable, Hashable {
    /// `invoice` or `card-on-delivery`.
    public var method: String
    /// Where the receipt goes.
    public var email: String

    /// A payment by `method`, its receipt to `email`.
    public init(method: String, email: String) {
        self.method = method
        self.email = email
    }
}
