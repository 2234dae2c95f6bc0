import Checkout
import FlowServer
import FlowTesting
import Foundation
import Testing

/// The checkout's pages over HTTP (FlowTesting's TestServer and TestBrowser): what each page
/// shows, and the server's own state (`/api/v1/session`) after each action.
@Suite("Checkout pages")
struct CheckoutPageTests {
    /// The app's templates, beside this package's Sources.
    static let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Templates").path

    /// Starts a server of the app with `orders` and runs `body` with it.
    private func withCheckout(orders: OrderBook = OrderBook(), _ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(try CheckoutApp.webApp(orders: orders), templates: Self.templates, body)
    }

    /// Posts the form of `page` that sends `step`, with `fields`.
    private func submit(_ step: String, _ fields: [(String, String)], on page: TestResponse, by browser: TestBrowser)
        async throws -> TestResponse
    {
        try await browser.post("/_step", form: page.formFields + fields + [("_step", step)])
    }

    @Test("a purchase from the empty cart to the order page, with invalid forms sent back with their messages")
    func purchase() async throws {
        let orders = OrderBook(newID: { "ORDER00042" })
        try await withCheckout(orders: orders) { server in
            let browser = server.browser()
            #expect(try await browser.get("/").location == "/cart")
            #expect(try await browser.get("/cart").text.contains("Your cart is empty."))
            // Each link is used from a fresh rendering of the cart (a link is sent once per rendering).
            for _ in 0..<2 {
                #expect(try await browser.follow("productIsAdded?id=tea", on: "/cart").location == "/cart")
            }
            let cart = try await browser.get("/cart")
            #expect(
                cart.text.contains("Green tea, 100 g × 2") && cart.text.contains("Subtotal: <strong>€13.00</strong>"))
            #expect(
                try await browser.get(try #require(cart.link(containing: ">Checkout<"))).location == "/checkout/address"
            )

            var page = try await browser.get("/checkout/address")
            let refused = try await submit(
                "addressIsEntered", [("name", "Ada"), ("street", ""), ("postcode", "!"), ("city", "London")], on: page,
                by: browser)
            #expect(refused.status == 303 && refused.location == "/checkout/address")  // post/redirect/get
            let invalid = try await browser.get("/checkout/address")
            #expect(
                invalid.text.contains("Enter the street and number.")
                    && invalid.text.contains("Enter a postcode of 3 to 10 letters and digits."))
            #expect(invalid.text.contains(#"value="Ada""#))  // the input is kept
            #expect(try await server.session(of: browser).topURL == "/checkout/address")  // nothing changed

            page = invalid
            let address = [
                ("name", "Ada Lovelace"), ("street", "1 Analytical Row"), ("postcode", "N1 9GU"), ("city", "London"),
            ]
            #expect(
                try await submit("addressIsEntered", address, on: page, by: browser).location == "/checkout/shipping")
            page = try await browser.get("/checkout/shipping")
            #expect(
                try await submit("shippingIsChosen", [("method", "express")], on: page, by: browser).location
                    == "/checkout/payment")
            page = try await browser.get("/checkout/payment")
            #expect(
                try await submit("paymentIsChosen", [("method", "invoice"), ("email", "ada")], on: page, by: browser)
                    .location == "/checkout/payment")
            let badEmail = try await browser.get("/checkout/payment")
            #expect(badEmail.text.contains("Enter the email address the receipt goes to"))
            #expect(
                try await submit(
                    "paymentIsChosen", [("method", "invoice"), ("email", "ada@example.com")], on: badEmail, by: browser
                ).location == "/checkout/review")

            let review = try await browser.get("/checkout/review")
            #expect(review.text.contains("Total: <strong>€22.90</strong>") && review.text.contains("N1 9GU London"))
            #expect(try await submit("orderIsPlaced", [], on: review, by: browser).location == "/orders/ORDER00042")
            let order = try await browser.get("/orders/ORDER00042")
            #expect(
                order.status == 200
                    && order.text.contains("Your order is confirmed; a receipt goes to ada@example.com."))
            let state = try await server.session(of: browser)
            #expect(state.topPage == "order" && state.topURL == "/orders/ORDER00042")
            #expect(orders.count == 1)
            // Back from the order page: the cart, now empty, with the order listed.
            let back = try await browser.get("/cart")
            #expect(back.text.contains("Your cart is empty.") && back.text.contains(#"href="/orders/ORDER00042""#))
            #expect(try await server.session(of: browser).topURL == "/cart")
        }
    }

    @Test("an order's link works in a fresh browser; an unknown order is a 404")
    func orderDeepLink() async throws {
        let orders = OrderBook()
        let id = try orders.place(.readyToOrder, catalog: .shop)
        try await withCheckout(orders: orders) { server in
            let fresh = server.browser()
            var answer = try await fresh.get("/orders/\(id)")
            if answer.status == 303 { answer = try await fresh.get(try #require(answer.location)) }
            #expect(
                answer.status == 200 && answer.text.contains("Order \(id)")
                    && answer.text.contains("Gooseneck kettle × 1"))
            #expect(try await server.session(of: fresh).topURL == "/orders/\(id)")
            let unknown = try await server.browser().get("/orders/NOSUCHORDR")
            #expect(unknown.status == 404)
        }
    }

    @Test("checkout with an empty cart shows a notice over the cart; help opens over any page and closes back to it")
    func modals() async throws {
        try await withCheckout { server in
            let browser = server.browser()
            _ = try await browser.get("/")
            #expect(try await browser.follow(">Checkout<", on: "/cart").location == "/notice")
            let notice = try await browser.get("/notice")
            #expect(
                notice.text.contains("Your cart is empty. Add a product before checking out.")
                    && notice.text.contains(#"role="dialog""#))
            #expect(try await server.session(of: browser).topPage == "notice")
            // Close is a visit to the page below: it is answered at once.
            let closed = try await browser.follow(#"class="close""#, on: "/notice")
            #expect(
                closed.status == 200 && closed.text.contains("<h1>Your cart</h1>")
                    && !closed.text.contains(#"role="dialog""#))
            #expect(try await server.session(of: browser).topPage == "cart")

            _ = try await browser.follow("productIsAdded?id=mug", on: "/cart")
            _ = try await browser.follow(">Checkout<", on: "/cart")
            #expect(try await browser.follow(">Help<", on: "/checkout/address").location == "/help")
            #expect(try await browser.get("/help").text.contains("four short steps"))
            #expect(try await browser.follow(#"class="close""#, on: "/help").text.contains("<h1>Delivery address</h1>"))
            #expect(try await server.session(of: browser).topURL == "/checkout/address")
        }
    }

    @Test("FlowServer's stylesheet and script are served without the app shipping them")
    func defaults() async throws {
        try await withCheckout { server in
            let browser = server.browser()
            #expect(try await browser.get("/public/site.css").status == 200)
            #expect(try await browser.get("/public/site.js").status == 200)
            let cart = try await browser.get(try #require(try await browser.get("/").location))
            #expect(cart.text.contains(#"<link rel="stylesheet" href="/public/site.css">"#))
            #expect(cart.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        }
    }

    @Test("a page template that is missing stops the server at start, naming the page and the file")
    func missingTemplate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("checkout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(atPath: Self.templates, toPath: directory.path)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("pages/review.mustache"))
        let error = await #expect(throws: WebAppError.self) {
            try await TestServer(try CheckoutApp.webApp(), templates: directory.path)
        }
        #expect(
            error?.message
                == "page \"review\" (ReviewPage) has no template \"pages/review\": looked for \(directory.path)/pages/review.mustache"
        )
    }
}
