import FlowServer

/// Every step of the checkout: what a link or a form on one of its pages asks for. Links and
/// forms name a step and give its parameters (`/_step/productIsAdded?id=tea`); the flow decides
/// where it leads.
public enum CheckoutStep: FlowStep {
    /// Show the cart (the app's start, and "Continue shopping").
    case cartIsRequired
    /// Put one of product `id` in the cart.
    case productIsAdded(id: String)
    /// Take one of product `id` out of the cart.
    case productIsRemoved(id: String)
    /// Start checking out (adapted to ``cartIsEmpty`` when the cart is empty).
    case checkoutIsRequired
    /// Checkout was asked for with nothing in the cart: say so.
    case cartIsEmpty
    /// The address form was sent (and found valid by its page).
    case addressIsEntered(name: String, street: String, postcode: String, city: String)
    /// A shipping method was chosen.
    case shippingIsChosen(method: String)
    /// A payment method and the receipt's email address were chosen.
    case paymentIsChosen(method: String, email: String)
    /// Place the order (adapted to ``orderIsConfirmed(id:)`` once the order book has it).
    case orderIsPlaced
    /// The order book took order `id`: show it. Only the flow's `adapt` makes this step.
    case orderIsConfirmed(id: String)
    /// Show order `id` (its deep link, `/orders/{id}`).
    case orderIsPicked(id: String)
    /// Show the help page over whatever page is open.
    case helpIsRequired
}
