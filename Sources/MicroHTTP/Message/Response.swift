/// An HTTP response: status, headers and body bytes. libmicrohttpd adds `Content-Length`
/// and `Date`; a `HEAD` request gets the headers of the `GET` answer without its body.
///
/// ```swift
/// var response = Response.html("<p>Hello</p>")
/// response.headers["Cache-Control"] = "no-store"
/// ```
public struct Response: Sendable {
    /// The status code.
    public var status: HTTPStatus
    /// The headers; several fields of one name (e.g. `Set-Cookie`) are sent as several lines.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]
    /// A body sent while it is produced, instead of ``body`` (see ``ResponseStream``).
    public var stream: ResponseStream?

    /// A response with everything given.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `stream`, sent chunked while it is produced.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], stream: ResponseStream) {
        self.init(status: status, headers: headers)
        self.stream = stream
    }

    /// A response with a body of the given media type.
    public init(status: HTTPStatus = .ok, contentType: MediaType, body: [UInt8]) {
        self.init(status: status, headers: ["Content-Type": contentType.description], body: body)
    }

    /// An HTML page (`text/html; charset=utf-8`).
    public static func html(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, contentType: .html, body: Array(text.utf8))
    }

    /// A plain-text message (`text/plain; charset=utf-8`), ending with a newline.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, contentType: .plainText, body: Array((text + "\n").utf8))
    }

    /// `303 See Other` to `location`.
    public static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: ["Location": location])
    }
}
