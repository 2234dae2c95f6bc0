/// Parsing of the `Cookie` request header (RFC 6265 §5.4): `name=value` pairs separated by `;`.
public enum Cookies {
    /// Every well-formed pair, in order. Malformed pieces (no `=`, empty or non-token name) are
    /// skipped, as browsers do; surrounding double quotes are removed from values. Values are not
    /// percent-decoded: that is the application's encoding.
    public static func parse(_ header: String) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        forEachPair(in: header) { name, value in
            cookies.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return true
        }
        return cookies
    }

    /// The value of the first well-formed cookie named `name` in `header`, read as ``parse(_:)``
    /// reads it, without building the others.
    public static func value(named name: String, in header: String) -> String? {
        var found: String?
        var wanted = name
        wanted.withUTF8 { wanted in
            forEachPair(in: header) { pairName, value in
                guard pairName.elementsEqual(wanted) else { return true }
                found = String(decoding: value, as: UTF8.self)
                return false
            }
        }
        return found
    }

    /// The bytes of one piece of a header.
    private typealias Piece = Slice<UnsafeBufferPointer<UInt8>>

    /// Calls `body` with the name and value bytes of each well-formed pair, in order, until it
    /// answers `false`. Works on the header's UTF-8 bytes in place: names are tokens and values
    /// cookie-octets, so no character needs more than a byte.
    private static func forEachPair(in header: String, _ body: (Piece, Piece) -> Bool) {
        var header = header
        header.withUTF8 { bytes in
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
                if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) {
                    let name = trimmed(bytes[start..<equals])
                    var value = trimmed(bytes[(equals + 1)..<end])
                    if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                        value = value.dropFirst().dropLast()
                    }
                    if !name.isEmpty, name.allSatisfy(HTTPToken.isTokenByte), !body(name, value) { return }
                }
                start = end + 1
            }
        }
    }

    private static func trimmed(_ bytes: Piece) -> Piece {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}

/// A `Set-Cookie` response header value.
///
/// ```swift
/// let cookie = SetCookie(name: "flowserver_session", value: id, sameSite: .lax, secure: true)
/// response.headers.add("Set-Cookie", cookie.headerValue)
/// ```
public struct SetCookie: Sendable, Hashable {
    /// The `SameSite` attribute.
    public enum SameSite: String, Sendable, Hashable {
        /// `SameSite=Strict`
        case strict = "Strict"
        /// `SameSite=Lax`
        case lax = "Lax"
        /// `SameSite=None` (requires `Secure` in browsers).
        case none = "None"
    }

    /// The cookie name (a token).
    public var name: String
    /// The value; only cookie-octets are allowed, so encode anything else before.
    public var value: String
    /// `Path`, default `/`.
    public var path: String?
    /// `Max-Age` in seconds; `0` deletes the cookie; `nil` makes a session cookie.
    public var maxAge: Int?
    /// `HttpOnly`, default on.
    public var httpOnly: Bool
    /// `Secure`.
    public var secure: Bool
    /// `SameSite`, default `Lax`.
    public var sameSite: SameSite?

    /// A cookie with the given attributes.
    public init(
        name: String, value: String, path: String? = "/", maxAge: Int? = nil,
        httpOnly: Bool = true, secure: Bool = false, sameSite: SameSite? = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.maxAge = maxAge
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
    }

    /// The header value, e.g. `id=abc; Path=/; HttpOnly; SameSite=Lax`.
    public var headerValue: String {
        var text = "\(name)=\(value)"
        if let path { text += "; Path=\(path)" }
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        if httpOnly { text += "; HttpOnly" }
        if secure { text += "; Secure" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        return text
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
