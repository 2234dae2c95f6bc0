import Crypto
import FlowWeb
import Foundation
import MicroHTTP

/// The payment provider's calls: `POST /webhooks/payments` with a JSON body
/// `{"order":"K7QX2M9TRB","status":"paid"}` and `X-Signature: sha256=<hex HMAC-SHA256 of the body>`
/// keyed with the secret both sides share.
public struct PaymentWebhook: Sendable {
    private let secret: SymmetricKey?
    private let orders: OrderBook

    /// Checks calls against `secret` (`nil`: the webhook is not configured and refuses every call)
    /// and marks orders paid in `orders`.
    public init(secret: String?, orders: OrderBook) {
        self.secret = secret.map { SymmetricKey(data: Array($0.utf8)) }
        self.orders = orders
    }

    /// What the provider sends.
    struct Notification: Decodable {
        var order: String
        var status: String
    }

    /// The `X-Signature` value of `body` under `secret`, as the provider computes it.
    public static func signature(of body: [UInt8], secret: String) -> String {
        "sha256=" + hex(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8))))
    }

    /// Applies the call in `request`.
    ///
    /// - Throws: ``WebError``: `503` without a secret, `401` for a missing or wrong signature,
    ///   `400` for a body that is not a notification, `404` for an unknown order.
    func apply(_ request: Request) throws(WebError) {
        guard let secret else {
            throw WebError(
                .serviceUnavailable, "Webhook not configured", "Start the server with --payment-webhook-secret.")
        }
        let expected = "sha256=" + Self.hex(HMAC<SHA256>.authenticationCode(for: request.body, using: secret))
        guard let given = request.headers["X-Signature"], Self.constantTimeEqual(given, expected) else {
            throw .unauthorized("The X-Signature header is missing or does not match the body.")
        }
        let notification: Notification
        do { notification = try JSONDecoder().decode(Notification.self, from: Data(request.body)) } catch {
            throw .badRequest("Send {\"order\": \"<id>\", \"status\": \"paid\"}.")
        }
        guard notification.status == "paid" else { return }  // other statuses: nothing to do yet
        guard orders.markPaid(notification.order) else { throw .notFound("There is no order \(notification.order).") }
    }

    private static func hex(_ code: some Sequence<UInt8>) -> String {
        code.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (a, b) = (Array(a.utf8), Array(b.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
