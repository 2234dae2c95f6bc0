import Checkout
import FlowServer
import FlowTesting
import Foundation
import Testing

/// The checkout's own routes and middleware, added without touching FlowServer: the product
/// search in JSON, the payment webhook, request ids.
@Suite("Checkout's own routes")
struct ShopRouteTests {
    static let secret = "test-webhook-secret"

    private func withCheckout(orders: OrderBook = OrderBook(), _ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(
            try CheckoutApp.webApp(orders: orders, paymentSecret: Self.secret), templates: CheckoutPageTests.templates,
            body)
    }

    private func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("the product search answers JSON with the browser's cart, and gives a stranger no session")
    func productSearch() async throws {
        try await withCheckout { server in
            let stranger = try await fetch(port: server.port, "/products.json?q=TEA")
            #expect(stranger.status == 200 && stranger.header("Content-Type") == "application/json")
            #expect(stranger.header("Set-Cookie") == nil)
            let found = try object(stranger)
            let products = try #require(found["products"] as? [[String: Any]])
            #expect(found["query"] as? String == "TEA" && products.map { $0["id"] as? String } == ["tea"])
            #expect(products.first?["inCart"] as? Int == 0)

            let browser = server.browser()
            _ = try await browser.get("/")
            for _ in 0..<2 { _ = try await browser.follow("productIsAdded?id=tea", on: "/cart") }
            let mine = try object(try await browser.get("/products.json"))
            let all = try #require(mine["products"] as? [[String: Any]])
            #expect(all.count > 1)
            #expect(all.first { $0["id"] as? String == "tea" }?["inCart"] as? Int == 2)
            #expect(try await server.session(of: browser).topURL == "/cart")  // reading changed nothing
        }
    }

    @Test("the payment webhook marks a signed order paid, and refuses a wrong signature or an unknown order")
    func paymentWebhook() async throws {
        let orders = OrderBook(newID: { "ORDER00007" })
        let id = try orders.place(.readyToOrder, catalog: .shop)
        try await withCheckout(orders: orders) { server in
            func call(_ json: String, signature: String?) async throws -> TestResponse {
                let body = Array(json.utf8)
                let signature = signature ?? PaymentWebhook.signature(of: body, secret: Self.secret)
                return try await fetch(
                    port: server.port, "/webhooks/payments", method: "POST",
                    headers: [("Content-Type", "application/json"), ("X-Signature", signature)], body: body)
            }
            let forged = try await call(#"{"order":"\#(id)","status":"paid"}"#, signature: "sha256=00")
            #expect(forged.status == 401 && forged.header("Content-Type") == "application/problem+json")
            #expect(orders.order(id)?.isPaid == false)
            let unknown = try await call(#"{"order":"NOSUCHID","status":"paid"}"#, signature: nil)
            #expect(unknown.status == 404)
            #expect(try await call(#"{"order":1}"#, signature: nil).status == 400)

            let paid = try await call(#"{"order":"\#(id)","status":"paid"}"#, signature: nil)
            #expect(paid.status == 204 && paid.header("Set-Cookie") == nil)
            #expect(orders.order(id)?.isPaid == true)
            let page = try await server.browser().get("/orders/\(id)")
            #expect(page.status == 200 && page.text.contains("Payment received."))
        }
    }

    @Test("without a secret the webhook refuses every call")
    func unconfiguredWebhook() async throws {
        try await TestServer.with(try CheckoutApp.webApp(), templates: CheckoutPageTests.templates) { server in
            let response = try await fetch(
                port: server.port, "/webhooks/payments", method: "POST", headers: [("X-Signature", "sha256=00")],
                body: Array("{}".utf8))
            #expect(response.status == 503)
        }
    }

    @Test("every answer carries a request id: the caller's when it is a short token, else a new one")
    func requestIDs() async throws {
        try await withCheckout { server in
            let browser = server.browser()
            let page = try await browser.get("/cart", headers: [("X-Request-ID", "abc-123")])
            #expect(page.header("X-Request-ID") == "abc-123")
            let reload = try await browser.get("/cart", headers: [("X-Request-ID", "no spaces allowed")])
            let fresh = try #require(reload.header("X-Request-ID"))
            #expect(fresh != "no spaces allowed" && !fresh.isEmpty)
            let other = try await browser.get("/cart")
            #expect(other.header("X-Request-ID") != fresh)
            #expect(try await fetch(port: server.port, "/products.json").header("X-Request-ID") != nil)
            #expect(try await fetch(port: server.port, "/nowhere").header("X-Request-ID") != nil)
        }
    }
}
