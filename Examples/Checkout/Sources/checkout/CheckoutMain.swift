import Checkout
import FlowServerRuntime

/// `checkout`: the checkout example served with FlowServer's whole command line (`checkout --help`).
@main
enum CheckoutMain {
    static func main() async {
        await FlowServerRuntime.run(
            .init(
                name: "checkout",
                abstract: "Serves the checkout example: cart, address, shipping, payment, review, order.")
        ) { _ in
            try CheckoutApp.webApp()
        }
    }
}
