import FlowServer

/// The checkout's own HTTP routes beside its pages: the product search behind the cart's search
/// box (JSON, with the browser's cart), and the payment provider's webhook.
public struct ShopRoutes: WebRouteCollection {
    let catalog: Catalog
    let payments: PaymentWebhook

    /// The routes over `catalog`, with `payments` checking and applying the provider's calls.
    public init(catalog: Catalog, payments: PaymentWebhook) {
        self.catalog = catalog
        self.payments = payments
    }

    /// What `GET /products.json` answers.
    struct SearchResult: Encodable {
        struct Product: Encodable {
            var id: String
            var name: String
            var price: Int
            /// How many of it the browser's cart holds.
            var inCart: Int
        }
        var query: String
        var products: [Product]
    }

    public func register(on router: inout Router, sessions: BrowserSessions<CheckoutStep>) {
        // `GET /products.json?q=tea`: the products whose name contains `q`, with the cart's counts.
        router.add(.get, "/products.json") { [catalog] request, _ in
            await sessions.respond(to: request) { session throws(WebError) in
                let query = ((try? request.queryItems) ?? []).first { $0.name == "q" }?.value ?? ""
                let cart = session?.appData(CheckoutSession.self)?.cart ?? []
                let products = catalog.products.filter {
                    query.isEmpty || $0.name.lowercased().contains(query.lowercased())
                }
                return try .json(
                    SearchResult(
                        query: query,
                        products: products.map { product in
                            .init(
                                id: product.id, name: product.name, price: product.price,
                                inCart: cart.first { $0.product == product.id }?.quantity ?? 0)
                        }))
            }
        }
        // `POST /webhooks/payments`: the provider says an order is paid. No session: the
        // signature says who calls.
        router.add(.post, "/webhooks/payments") { [payments] request, _ in
            do throws(WebError) {
                try payments.apply(request)
                return Response(status: .noContent)
            } catch {
                return error.problem
            }
        }
    }
}
