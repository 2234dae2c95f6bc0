/// An HTTP response status code. libmicrohttpd writes the reason phrase itself.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit status code.
    public let code: Int

    /// Wraps a status code; codes outside 100...599 are a programming error.
    public init(_ code: Int) {
        precondition((100...599).contains(code), "HTTP status codes are 100...599, got \(code)")
        self.code = code
    }

    public var description: String { String(code) }

    /// Whether the status forbids a body (1xx, 204, 304).
    public var forbidsBody: Bool { code < 200 || code == 204 || code == 304 }

    /// 200 OK
    public static let ok = HTTPStatus(200)
    /// 201 Created
    public static let created = HTTPStatus(201)
    /// 204 No Content
    public static let noContent = HTTPStatus(204)
    /// 303 See Other
    public static let seeOther = HTTPStatus(303)
    /// 304 Not Modified
    public static let notModified = HTTPStatus(304)
    /// 400 Bad Request
    public static let badRequest = HTTPStatus(400)
    /// 403 Forbidden
    public static let forbidden = HTTPStatus(403)
    /// 404 Not Found
    public static let notFound = HTTPStatus(404)
    /// 405 Method Not Allowed
    public static let methodNotAllowed = HTTPStatus(405)
    /// 413 Content Too Large
    public static let contentTooLarge = HTTPStatus(413)
    /// 415 Unsupported Media Type
    public static let unsupportedMediaType = HTTPStatus(415)
    /// 422 Unprocessable Content
    public static let unprocessableContent = HTTPStatus(422)
    /// 500 Internal Server Error
    public static let internalServerError = HTTPStatus(500)
    /// 503 Service Unavailable
    public static let serviceUnavailable = HTTPStatus(503)
}
