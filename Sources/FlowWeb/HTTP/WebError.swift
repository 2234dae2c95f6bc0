import MicroHTTP

/// A request the web layer refuses or cannot serve; it knows its status and builds its own
/// answer: an HTML page for browsers, `application/problem+json` (RFC 9457) for the API.
public struct WebError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public let status: HTTPStatus
    /// A short title (`Bad request`).
    public let title: String
    /// What was wrong, in words a client can act on.
    public let detail: String
    /// Extra headers (`Allow`, `Retry-After`).
    public var headers: HTTPHeaders = [:]
    /// The problem's type (RFC 9457): `about:blank` — the status says it all — unless the
    /// contract documents a type of its own (``SessionLimits/problemType``).
    public var type = "about:blank"
    /// The problem's extension members, by name, each value as JSON.
    var members: [(name: String, json: String)] = []

    /// An error of `status`, with a short `title` and a `detail` a client can act on.
    public init(_ status: HTTPStatus, _ title: String, _ detail: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.title = title
        self.detail = detail
        self.headers = headers
    }

    /// `400`: the request is malformed.
    public static func badRequest(_ detail: String) -> Self { Self(.badRequest, "Bad request", detail) }
    /// `403`: the request may not do this.
    public static func forbidden(_ detail: String) -> Self { Self(.forbidden, "Forbidden", detail) }
    /// `404`: nothing here.
    public static func notFound(_ detail: String) -> Self { Self(.notFound, "Not found", detail) }
    /// `413`: the body is over the limit.
    public static func contentTooLarge(_ detail: String) -> Self { Self(.contentTooLarge, "Content too large", detail) }
    /// `415`: the body's type is not accepted.
    public static func unsupportedMediaType(_ detail: String) -> Self {
        Self(.unsupportedMediaType, "Unsupported media type", detail)
    }
    /// `401`: the request does not say who sends it.
    public static func unauthorized(_ detail: String) -> Self { Self(HTTPStatus(401), "Unauthorized", detail) }
    /// `405` with `Allow`.
    public static func methodNotAllowed(_ allow: String) -> Self {
        Self(.methodNotAllowed, "Method not allowed", "allowed here: \(allow)", headers: ["Allow": allow])
    }
    /// `503` with `Retry-After`: try again shortly.
    public static func unavailable(_ detail: String) -> Self {
        Self(.serviceUnavailable, "Service unavailable", detail, headers: ["Retry-After": "2"])
    }
    /// `429`: too many new sessions from one client.
    public static func tooManyRequests(_ detail: String, retryAfter seconds: Int) -> Self {
        Self(HTTPStatus(429), "Too many new sessions", detail, headers: ["Retry-After": "\(seconds)"])
    }
    /// `429`: too many event streams.
    public static func tooManyStreams(_ detail: String) -> Self {
        Self(HTTPStatus(429), "Too many event streams", detail, headers: ["Retry-After": "15"])
    }
    /// `409`: a part of the session's history was stored by a version of the app that this one
    /// cannot read (or replay) even with its migrations.
    public static func otherVersion(_ detail: String) -> Self {
        Self(HTTPStatus(409), "Stored by another version", detail)
    }
    /// `500`: the server failed.
    public static func internalError(_ detail: String) -> Self { Self(.internalServerError, "Internal error", detail) }

    public var description: String { "\(status.code) \(title): \(detail)" }

    /// This error as a client is told of it when the server failed: the same status, title and
    /// headers, and instead of the detail (which names the server's files, templates and types)
    /// a `reference` under which the server's log has it, also a member of the problem document.
    func withheld(reference: String) -> Self {
        var withheld = Self(
            status, title,
            "The server could not answer this request. Its log says what failed, under reference \(reference).",
            headers: headers)
        withheld.type = type
        withheld.members = [("reference", Self.quote(reference))]
        return withheld
    }

    /// The answer for the JSON API: `application/problem+json` (RFC 9457).
    public var problem: Response {
        let document: [(String, String)] = [
            ("type", type), ("title", title), ("detail", detail),
        ]
        var json = "{"
        for (key, value) in document { json += "\"\(key)\":\(Self.quote(value))," }
        for member in members { json += "\"\(member.name)\":\(member.json)," }
        json += "\"status\":\(status.code)}"
        var response = Response(status: status, contentType: .problemJSON, body: Array(json.utf8))
        for field in headers { response.headers.add(field.name, field.value) }
        return response
    }

    private static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20:
                result +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
