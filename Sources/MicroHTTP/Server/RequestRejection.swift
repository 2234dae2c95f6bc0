/// A request the server refused before any responder saw it: a malformed request target or
/// a body over the limit. Responders may shape the answer through
/// ``HTTPResponder/response(for:)``.
public struct RequestRejection: Error, Sendable, CustomStringConvertible {
    /// `400` or `413`.
    public let status: HTTPStatus
    /// What was wrong, in words a client can act on.
    public let message: String

    /// A rejection.
    public init(status: HTTPStatus, message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status.code): \(message)" }
}

extension HTTPResponder {
    /// The default answer to a rejected request: plain text with the reason.
    public func response(for rejection: RequestRejection) -> Response {
        .text(rejection.message, status: rejection.status)
    }
}
