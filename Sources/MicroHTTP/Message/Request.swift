/// An HTTP request as the server hands it to a responder: everything is already received.
///
/// The path is split into segments on `/` *before* percent-decoding, so `%2F` stays inside its
/// segment and can never introduce a directory separator.
public struct Request: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target exactly as received, e.g. `/movies/42?tab=cast`.
    public var target: String
    /// The raw (still percent-encoded) path, e.g. `/caf%C3%A9`.
    public var rawPath: String
    /// The decoded path segments: `/movies/42/` gives `["movies", "42", ""]`, `/` gives `[]`.
    public var pathSegments: [String]
    /// The raw query after `?`, without it; `nil` when the target has no `?`.
    public var rawQuery: String?
    /// The request headers.
    public var headers: HTTPHeaders
    /// The complete body (empty when there is none).
    public var body: [UInt8]
    /// The peer address, e.g. `127.0.0.1:53012`, when known.
    public var remoteAddress: String?

    /// Builds a request from a raw request target.
    ///
    /// - Throws: ``HTTPParseError`` when the target is not an absolute path (or absolute URL), or
    ///   its path has malformed percent-encoding or invalid UTF-8.
    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String? = nil
    ) throws(HTTPParseError) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        let parsed = try RequestTarget(parsing: target)
        self.rawPath = parsed.rawPath
        self.rawQuery = parsed.rawQuery
        self.pathSegments = parsed.segments
    }

    /// The decoded path, segments joined with `/` (for display and logs; route on
    /// ``pathSegments``).
    public var path: String {
        // Without escapes the decoded path is the raw one: the segments were split on its `/`.
        if !rawPath.utf8.contains(UInt8(ascii: "%")) { return rawPath }
        return "/" + pathSegments.joined(separator: "/")
    }

    /// The decoded query items, in order.
    ///
    /// - Throws: ``HTTPParseError`` for malformed percent-encoding, invalid UTF-8 or more than
    ///   ``URLEncodedForm/defaultMaxFields`` items.
    public var queryItems: [FormField] {
        get throws(HTTPParseError) {
            guard let rawQuery else { return [] }
            return try URLEncodedForm.parse(Array(rawQuery.utf8), location: "query")
        }
    }

    /// The cookies of the `Cookie` headers, in order.
    public var cookies: [(name: String, value: String)] {
        headers.values(for: "Cookie").flatMap(Cookies.parse)
    }

    /// The first cookie named `name`.
    public func cookie(_ name: String) -> String? {
        for field in headers where HTTPHeaders.same(field.name, "Cookie") {
            if let value = Cookies.value(named: name, in: field.value) { return value }
        }
        return nil
    }

    /// The parsed `Content-Type`, `nil` when absent.
    ///
    /// - Throws: ``HTTPParseError`` (`invalidMediaType`) when present but malformed.
    public var contentType: MediaType? {
        get throws(HTTPParseError) {
            guard let value = headers["Content-Type"] else { return nil }
            return try MediaType(parsing: value)
        }
    }

    /// The parsed `Accept` header (everything when absent).
    public var accept: AcceptHeader { AcceptHeader(parsing: headers["Accept"]) }
}

/// A request target split into raw path, decoded segments and raw query.
struct RequestTarget {
    var rawPath: String
    var rawQuery: String?
    var segments: [String]

    init(parsing target: String) throws(HTTPParseError) {
        var text = Substring(target)
        // Origin-form (`/path`), what nearly every request uses, skips the absolute-form check.
        if text.utf8.first != UInt8(ascii: "/"), let scheme = ["http://", "https://"].first(where: { text.lowercased().hasPrefix($0) }) {
            // absolute-form (RFC 9112 §3.2.2): drop scheme and authority.
            let afterAuthority = text.dropFirst(scheme.count)
            text = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" })
                .map { afterAuthority[$0...] } ?? "/"
            if text.first == "?" { text = "/" + text }
        }
        guard text.utf8.first == UInt8(ascii: "/") else { throw HTTPParseError(.invalidTarget, in: "request target") }
        // Scanned as bytes: `#` and `?` are ASCII, and byte indices are valid string indices here.
        if let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) { text = text[..<hash] }
        let question = text.utf8.firstIndex(of: UInt8(ascii: "?"))
        let pathPart = text[..<(question ?? text.endIndex)]
        rawPath = String(pathPart)
        rawQuery = question.map { String(text[text.utf8.index(after: $0)...]) }
        // The segments between the slashes after the first: `/` has none, `/a/` has `a` and ``.
        var segments: [String] = []
        let bytes = pathPart.utf8
        var start = bytes.index(after: bytes.startIndex)
        var offset = 1
        while start != bytes.endIndex || !segments.isEmpty {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            let raw = bytes[start..<end]
            do {
                segments.append(try PercentDecoding.decode(raw, plusAsSpace: false, location: "path"))
            } catch {
                throw HTTPParseError(error.code, in: "path", at: error.offset.map { $0 + offset })
            }
            offset += raw.count + 1
            guard end != bytes.endIndex else { break }
            start = bytes.index(after: end)
        }
        self.segments = segments
    }
}
