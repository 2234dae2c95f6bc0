import FlowServer

/// The whole checkout as one stack: the cart at the bottom, then the wizard's pages pushed one
/// on another (address, shipping, payment, review), so that Back walks the wizard backwards;
/// once an order is placed, the stack becomes the cart and the order page. Help is presented
/// over any page; an order's deep link pushes its page.
public struct ShopFlow: Flow {
    public static let name = "shop"
    public static let container = ContainerKind.stack

    /// Whether the cart page was pushed (it stays at the bottom of the stack from then on).
    /// A flow's stored properties are its state, kept in the session's tree.
    public var hasCart = false

    /// A new shop.
    public init() {}

    /// Checkout with an empty cart becomes ``CheckoutStep/cartIsEmpty``; placing an order
    /// writes it to the ``OrderBook`` and becomes ``CheckoutStep/orderIsConfirmed(id:)``. Both
    /// decisions are recorded in the history, so replaying it places nothing again.
    public func adapt(_ step: CheckoutStep, context: FlowContext) async -> StepAdaptation<CheckoutStep> {
        let session = context.appData(CheckoutSession.self)
        switch step {
        case .checkoutIsRequired:
            return session.cartIsEmpty ? .step(.cartIsEmpty) : .step(step)
        case .orderIsPlaced:
            guard let book = context[OrderBook.self] else { return .refuse }
            do {
                return .step(.orderIsConfirmed(id: try book.place(session, catalog: context.catalog)))
            } catch .emptyCart {
                return .step(.cartIsEmpty)
            } catch {
                return .refuse
            }
        case .orderIsConfirmed:
            // Only `adapt` confirms an order: a link or form that names this step is refused.
            return .refuse
        default:
            return .step(step)
        }
    }

    public mutating func navigate(to step: CheckoutStep, context: FlowContext) -> FlowContributors<CheckoutStep> {
        let catalog = context.catalog
        switch step {
        case .cartIsRequired:
            // The first time, the cart starts the stack; after that, everything above it goes.
            guard hasCart else {
                hasCart = true
                return .one(.push(CartPage()))
            }
            return .one(.popToRoot)
        case .productIsAdded(let id):
            guard catalog.product(id) != nil else { return .none }
            context.updateAppData(CheckoutSession.self) { $0.add(id) }
            return .multiple([])  // handled: the cart page shows the new cart
        case .productIsRemoved(let id):
            context.updateAppData(CheckoutSession.self) { $0.remove(id) }
            return .multiple([])
        case .checkoutIsRequired:
            return .one(.push(AddressPage()))
        case .cartIsEmpty:
            return .one(.present(NoticePage(message: "Your cart is empty. Add a product before checking out.")))
        case .addressIsEntered(let name, let street, let postcode, let city):
            context.updateAppData(CheckoutSession.self) {
                $0.address = Address(name: name, street: street, postcode: postcode, city: city)
            }
            return .one(.push(ShippingPage()))
        case .shippingIsChosen(let method):
            guard catalog.shippingMethod(method) != nil, context.appData(CheckoutSession.self).address != nil else {
                return .none
            }
            context.updateAppData(CheckoutSession.self) { $0.shipping = method }
            return .one(.push(PaymentPage()))
        case .paymentIsChosen(let method, let email):
            guard catalog.paymentMethod(method) != nil, context.appData(CheckoutSession.self).shipping != nil else {
                return .none
            }
            context.updateAppData(CheckoutSession.self) { $0.payment = Payment(method: method, email: email) }
            return .one(.push(ReviewPage()))
        case .orderIsPlaced:
            return .none  // never reaches here: `adapt` turns it into a confirmation or refuses it
        case .orderIsConfirmed(let id):
            context.updateAppData(CheckoutSession.self) { session in
                session.startOver()
                session.orders.append(id)
            }
            // The wizard's pages leave: Back from the order goes to the (empty) cart.
            return .one(.set([CartPage(), OrderPage(id: id)]))
        case .orderIsPicked(let id):
            guard context[OrderBook.self]?.order(id) != nil else { return .none }
            return .one(.push(OrderPage(id: id)))
        case .helpIsRequired:
            return .one(.present(HelpPage()))
        }
    }
}

extension FlowContext {
    /// The catalog the app registered (the example's shop when none was).
    var catalog: Catalog { self[Catalog.self] ?? .shop }
}
