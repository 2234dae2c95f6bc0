import ArgumentParser
import Checkout
import FlowServer

/// The checkout's own flag, beside FlowServer's command line.
struct CheckoutOptions: ParsableArguments {
    @Option(
        name: .customLong("payment-webhook-secret"),
        help:
            "The secret the payment provider signs POST /webhooks/payments with (without it, the webhook refuses calls)."
    )
    var paymentWebhookSecret: String?
}

/// `checkout`: the checkout example served with FlowServer's whole command line (`checkout --help`).
@main
enum CheckoutMain {
    static func main() async {
        await FlowServerRuntime.run(
            .init(
                name: "checkout",
                abstract: "Serves the checkout example: cart, address, shipping, payment, review, order."),
            options: CheckoutOptions.self, environmentOptions: ["payment-webhook-secret"],
            // `checkout explore`: an order's link needs an order, which exists only once placed;
            // the explorer reaches the order page by placing one (at a depth of 8).
            exploration: ExplorationSamples(deepLinks: ["/orders/{id}": []])
        ) { _, options in
            try CheckoutApp.webApp(paymentSecret: options.paymentWebhookSecret)
        }
    }
}
