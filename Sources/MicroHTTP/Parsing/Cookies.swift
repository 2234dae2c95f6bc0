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
                guard pairName.count == wanted.count, pairName.elementsEqual(wanted) else { return true }
                found = String(decoding: value, as: UTF8.self)
                return false
            }
        }
        return found
    }

    /// Calls `body` with the name and value bytes of each well-formed pair, in order, until it
    /// answers `false`. Works on the header's UTF-8 bytes in place: names are tokens and values
    /// cookie-octets, so no character needs more than a byte. A name passed to `body` is never
    /// empty; a value may be.
    private static func forEachPair(
        in header: String, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        var header = header
        header.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            let count = bytes.count
            var start = 0
            while start < count {
                var end = start
                var equals = -1
                while end < count, base[end] != UInt8(ascii: ";") {
                    if equals < 0, base[end] == UInt8(ascii: "=") { equals = end }
                    end += 1
                }
                if equals >= 0 {
                    let (nameStart, nameEnd) = trimmed(base, from: start, to: equals)
                    var (valueStart, valueEnd) = trimmed(base, from: equals + 1, to: end)
                    if valueEnd - valueStart >= 2, base[valueStart] == UInt8(ascii: "\""),
                        base[valueEnd - 1] == UInt8(ascii: "\"")
                    {
                        valueStart += 1
                        valueEnd -= 1
                    }
                    let name = UnsafeBufferPointer(start: base + nameStart, count: nameEnd - nameStart)
                    if !name.isEmpty, name.allSatisfy(HTTPToken.isTokenByte),
                        !body(name, UnsafeBufferPointer(start: base + valueStart, count: valueEnd - valueStart))
                    {
                        return
                    }
                }
                start = end + 1
            }
        }
    }

    /// `from..<to` without the spaces and tabs at either end.
    private static func trimmed(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> (Int, Int) {
        var (start, end) = (start, end)
        while start < end, base[start] == 0x20 || base[start] == 0x09 { start += 1 }
        while end > start, base[end - 1] == 0x20 || base[end - 1] == 0x09 { end -= 1 }
        return (start, end)
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
