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
        if text.utf8.first != UInt8(ascii: "/"),
            let scheme = ["http://", "https://"].first(where: { text.lowercased().hasPrefix($0) })
        {
            // absolute-form (RFC 9112 §3.2.2): drop scheme and authority.
            let afterAuthority = text.dropFirst(scheme.count)
            text =
                afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" })
                .map { afterAuthority[$0...] } ?? "/"
            if text.first == "?" { text = "/" + text }
        }
        guard text.utf8.first == UInt8(ascii: "/") else { throw HTTPParseError(.invalidTarget, in: "request target") }
        // Scanned as bytes, once: `#`, `?` and `/` are ASCII.
        var failure: HTTPParseError?
        let parsed = text.withUTF8 { bytes -> (rawPath: String, rawQuery: String?, segments: [String])? in
            let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            let question = bytes[..<end].firstIndex(of: UInt8(ascii: "?"))
            let pathEnd = question ?? end
            let rawPath = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<pathEnd]), as: UTF8.self)
            let rawQuery = question.map {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)..<end]), as: UTF8.self)
            }
            // The segments between the slashes after the first: `/` has none, `/a/` has `a` and ``.
            var segments: [String] = []
            guard pathEnd > 1 else { return (rawPath, rawQuery, segments) }
            segments.reserveCapacity(bytes[1..<pathEnd].reduce(1) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) })
            var start = 1
            while true {
                var stop = start
                while stop < pathEnd, bytes[stop] != UInt8(ascii: "/") { stop += 1 }
                do throws(HTTPParseError) {
                    segments.append(
                        try PercentDecoding.decode(
                            UnsafeBufferPointer(rebasing: bytes[start..<stop]), plusAsSpace: false, location: "path"))
                } catch {
                    failure = HTTPParseError(error.code, in: "path", at: error.offset.map { $0 + start })
                    return nil
                }
                if stop == pathEnd { break }
                start = stop + 1
            }
            return (rawPath, rawQuery, segments)
        }
        guard let parsed else { throw failure ?? HTTPParseError(.invalidTarget, in: "request target") }
        (rawPath, rawQuery, segments) = parsed
    }
}
