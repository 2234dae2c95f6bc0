import Checkout

extension CheckoutSession {
    /// A session with a kettle in the cart and every wizard answer given: ready to place an order.
    static var readyToOrder: CheckoutSession {
        var session = CheckoutSession()
        session.cart = [CartLine(product: "kettle", quantity: 1)]
        session.address = Address(name: "Grace Hopper", street: "7 Compiler Way", postcode: "20500", city: "Arlington")
        session.shipping = "standard"
        session.payment = Payment(method: "card-on-delivery", email: "grace@example.com")
        return session
    }
}
