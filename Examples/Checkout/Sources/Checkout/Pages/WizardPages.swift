import FlowServer

/// The delivery address form: every field required, the postcode checked. An invalid form
/// comes back to the page with its messages; a valid one becomes ``CheckoutStep/addressIsEntered(name:street:postcode:city:)``.
public struct AddressPage: WebPage {
    public static let name = "address"
    public static let template = "pages/address"
    public var path: PagePath { "/checkout/address" }
    public var title: String { "Delivery address" }

    /// A new address page.
    public init() {}

    /// What the address template shows: the address entered before, if any.
    public struct Model: Encodable {
        var saved: Address?
        var help: String
    }

    public func model(in context: PageContext) throws -> Model {
        Model(
            saved: context.services.appData(CheckoutSession.self).address,
            help: context.link(to: CheckoutStep.helpIsRequired))
    }

    public func validate(step: String, fields: [String: String]) -> [String: String] {
        var errors: [String: String] = [:]
        for (field, message) in [
            ("name", "Enter who receives the parcel."), ("street", "Enter the street and number."),
            ("city", "Enter the city."),
        ]
        where fields[field, default: ""].trimmingCharacters(in: .whitespaces).isEmpty {
            errors[field] = message
        }
        let postcode = fields["postcode", default: ""].trimmingCharacters(in: .whitespaces)
        if !(3...10).contains(postcode.count)
            || !postcode.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" })
        {
            errors["postcode"] = "Enter a postcode of 3 to 10 letters and digits."
        }
        return errors
    }
}

/// The choice of a shipping method.
public struct ShippingPage: WebPage {
    public static let name = "shipping"
    public static let template = "pages/shipping"
    public var path: PagePath { "/checkout/shipping" }
    public var title: String { "Shipping" }

    /// A new shipping page.
    public init() {}

    /// What the shipping template shows: each method, the one chosen before checked.
    public struct Model: Encodable {
        struct Method: Encodable {
            var id: String
            var name: String
            var price: String
            var checked: Bool
        }

        var methods: [Method]
        var help: String
    }

    public func model(in context: PageContext) throws -> Model {
        let catalog = context.services.catalog
        let chosen = context.services.appData(CheckoutSession.self).shipping ?? catalog.shippingMethods.first?.id
        return Model(
            methods: catalog.shippingMethods.map {
                Model.Method(
                    id: $0.id, name: $0.name, price: $0.price == 0 ? "free" : euros($0.price), checked: $0.id == chosen)
            },
            help: context.link(to: CheckoutStep.helpIsRequired))
    }

    public func validate(step: String, fields: [String: String]) -> [String: String] {
        fields["method", default: ""].isEmpty ? ["method": "Choose a shipping method."] : [:]
    }
}

/// The choice of a payment method and the receipt's email address.
public struct PaymentPage: WebPage {
    public static let name = "payment"
    public static let template = "pages/payment"
    public var path: PagePath { "/checkout/payment" }
    public var title: String { "Payment" }

    /// A new payment page.
    public init() {}

    /// What the payment template shows: each method, and the email address entered before.
    public struct Model: Encodable {
        struct Method: Encodable {
            var id: String
            var name: String
            var checked: Bool
        }

        var methods: [Method]
        var email: String
        var help: String
    }

    public func model(in context: PageContext) throws -> Model {
        let catalog = context.services.catalog
        let payment = context.services.appData(CheckoutSession.self).payment
        let chosen = payment?.method ?? catalog.paymentMethods.first?.id
        return Model(
            methods: catalog.paymentMethods.map { Model.Method(id: $0.id, name: $0.name, checked: $0.id == chosen) },
            email: payment?.email ?? "", help: context.link(to: CheckoutStep.helpIsRequired))
    }

    public func validate(step: String, fields: [String: String]) -> [String: String] {
        var errors: [String: String] = [:]
        if fields["method", default: ""].isEmpty { errors["method"] = "Choose how to pay." }
        let email = fields["email", default: ""].trimmingCharacters(in: .whitespaces)
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count != 2 || parts[0].isEmpty || !parts[1].contains(".") || email.contains(" ") {
            errors["email"] = "Enter the email address the receipt goes to, like ada@example.com."
        }
        return errors
    }
}

/// Everything the order will be, and the button that places it.
public struct ReviewPage: WebPage {
    public static let name = "review"
    public static let template = "pages/review"
    public var path: PagePath { "/checkout/review" }
    public var title: String { "Review your order" }

    /// A new review page.
    public init() {}

    /// What the review template shows: the order as it will be placed.
    public struct Model: Encodable {
        var summary: OrderSummary
        var help: String
    }

    public func model(in context: PageContext) throws -> Model {
        Model(
            summary: OrderSummary(context.services.appData(CheckoutSession.self), catalog: context.services.catalog),
            help: context.link(to: CheckoutStep.helpIsRequired))
    }
}
