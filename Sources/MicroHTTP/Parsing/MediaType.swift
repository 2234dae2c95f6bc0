/// A media type such as `text/html; charset=utf-8`, as found in `Content-Type` and `Accept`.
/// Type, subtype and parameter names are lowercased; parameter values keep their case.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The top-level type, e.g. `text`; `*` in `Accept` ranges.
    public var type: String
    /// The subtype, e.g. `html`; `*` in `Accept` ranges.
    public var subtype: String
    /// Parameters in order, names lowercased, quotes removed from values.
    public var parameters: [(name: String, value: String)]

    /// A media type with parameters.
    public init(type: String, subtype: String, parameters: [(name: String, value: String)] = []) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = parameters.map { ($0.name.lowercased(), $0.value) }
    }

    /// Parses `type/subtype *(; name=value)`, a value a token or a quoted string (RFC 9110
    /// §5.6.6; `\"` and `\\` inside quotes stand for `"` and `\`, and a `;` inside quotes is
    /// part of the value).
    ///
    /// - Throws: ``HTTPParseError`` with code `invalidMediaType`.
    public init(parsing text: String, location: String = "Content-Type") throws(HTTPParseError) {
        if let essence = Self.essenceAlone(text) {
            self = essence
            return
        }
        // Read by Unicode scalars, not characters: a scalar that joins the next one into a
        // character (a prepended concatenation mark, U+0600–U+0605) would otherwise swallow the
        // `"` or `;` after it.
        var rest = Substring(text).unicodeScalars
        let essenceEnd = rest.firstIndex(of: ";") ?? rest.endIndex
        let parts = Substring(rest[..<essenceEnd]).trimmingSpaces().split(
            separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, HTTPToken.isToken(parts[0]), HTTPToken.isToken(parts[1]) else {
            throw HTTPParseError(.invalidMediaType, in: location)
        }
        rest = rest[essenceEnd...]
        var parameters: [(name: String, value: String)] = []
        while let separator = rest.first, separator == ";" {
            rest = rest.dropFirst().drop(while: Self.isSpace)
            if rest.isEmpty || rest.first == ";" { continue }
            guard let equals = rest.firstIndex(of: "="), HTTPToken.isToken(Substring(rest[..<equals])) else {
                throw HTTPParseError(.invalidMediaType, in: location)
            }
            let name = String(Substring(rest[..<equals]))
            rest = rest[rest.index(after: equals)...]
            var value = String.UnicodeScalarView()
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var closed = false
                while let scalar = rest.popFirst() {
                    if scalar == "\"" {
                        closed = true
                        break
                    }
                    if scalar == "\\", let escaped = rest.popFirst() {
                        value.append(escaped)
                    } else {
                        value.append(scalar)
                    }
                }
                guard closed else { throw HTTPParseError(.invalidMediaType, in: location) }
                rest = rest.drop(while: Self.isSpace)
                guard rest.isEmpty || rest.first == ";" else { throw HTTPParseError(.invalidMediaType, in: location) }
            } else {
                let valueEnd = rest.firstIndex(of: ";") ?? rest.endIndex
                var unquoted = rest[..<valueEnd].drop(while: Self.isSpace)
                while let last = unquoted.last, Self.isSpace(last) { unquoted.removeLast() }
                value.append(contentsOf: unquoted)
                rest = rest[valueEnd...]
            }
            parameters.append((name, String(value)))
        }
        self.init(type: String(parts[0]), subtype: String(parts[1]), parameters: parameters)
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// `text` as a media type when it is `type/subtype` alone, two tokens with no space and no
    /// parameter (a form's usual `Content-Type`), read without the general parse's copies; `nil`
    /// for anything else.
    private static func essenceAlone(_ text: String) -> MediaType? {
        let bytes = text.utf8
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let type = Substring(bytes[..<slash])
        let subtype = Substring(bytes[bytes.index(after: slash)...])
        guard HTTPToken.isToken(type), HTTPToken.isToken(subtype) else { return nil }
        return MediaType(type: String(type), subtype: String(subtype))
    }

    /// The value of parameter `name` (case-insensitive), e.g. `charset`.
    public func parameter(_ name: String) -> String? {
        let name = name.lowercased()
        return parameters.first { $0.name == name }?.value
    }

    /// Whether type and subtype are equal, ignoring parameters.
    public func hasSameEssence(as other: MediaType) -> Bool {
        type == other.type && subtype == other.subtype
    }

    /// `type/subtype; name=value`, a value quoted when it is not a token (so that it parses back).
    public var description: String {
        parameters.reduce("\(type)/\(subtype)") { "\($0); \($1.name)=\(Self.quotedIfNeeded($1.value))" }
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        if HTTPToken.isToken(Substring(value)) { return value }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    public static func == (lhs: MediaType, rhs: MediaType) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// `text/html; charset=utf-8`
    public static let html = MediaType(type: "text", subtype: "html", parameters: [("charset", "utf-8")])
    /// `text/plain; charset=utf-8`
    public static let plainText = MediaType(type: "text", subtype: "plain", parameters: [("charset", "utf-8")])
    /// `application/json`
    public static let json = MediaType(type: "application", subtype: "json")
    /// `application/problem+json` (RFC 9457)
    public static let problemJSON = MediaType(type: "application", subtype: "problem+json")
    /// `application/x-www-form-urlencoded`
    public static let urlEncodedForm = MediaType(type: "application", subtype: "x-www-form-urlencoded")
    /// `multipart/form-data`
    public static let multipartFormData = MediaType(type: "multipart", subtype: "form-data")
}
