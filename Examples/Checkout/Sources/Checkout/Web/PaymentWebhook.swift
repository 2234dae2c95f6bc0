import Crypto
import FlowServer
import Foundation

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
    /// - Throws: ``WebError``: `503` without a secret, `401` for a missing or wrong signature
    ///   (checked in constant time, by Crypto),
    ///   `400` for a body that is not a notification, `404` for an unknown order.
    func apply(_ request: Request) throws(WebError) {
        guard let secret else {
            throw WebError(
                .serviceUnavailable, "Webhook not configured", "Start the server with --payment-webhook-secret.")
        }
        guard let given = request.headers["X-Signature"], given.hasPrefix("sha256="),
            let code = Self.bytes(hex: given.dropFirst("sha256=".count)),
            HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: request.body, using: secret)
        else {
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

    /// The bytes `text` spells in hexadecimal, or `nil`.
    private static func bytes(hex text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}
