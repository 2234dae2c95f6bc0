/// Parsing of the `Cookie` request header (RFC 6265 §5.4): `name=value` pairs separated by `;`.
public enum Cookies {
    /// Every well-formed pair, in order. Malformed pieces (no `=`, empty or non-token name) are
    /// skipped, as browsers do; surrounding double quotes are removed from values. Values are not
    /// percent-decoded: that is the application's encoding.
    public static func parse(_ header: String) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        for piece in header.split(separator: ";") {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let name = piece[..<equals].trimmingSpaces()
            var value = piece[piece.index(after: equals)...].trimmingSpaces()
            guard HTTPToken.isToken(name) else { continue }
            if value.count >= 2, value.first == "\"", value.last == "\"" {
                value = value.dropFirst().dropLast()
            }
            cookies.append((String(name), String(value)))
        }
        return cookies
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
