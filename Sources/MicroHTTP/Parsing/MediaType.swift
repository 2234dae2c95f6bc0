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

    /// Parses `type/subtype *(; name=value)`.
    ///
    /// - Throws: ``HTTPParseError`` with code `invalidMediaType`.
    public init(parsing text: String, location: String = "Content-Type") throws(HTTPParseError) {
        var pieces = text.split(separator: ";", omittingEmptySubsequences: false)[...]
        let essence = (pieces.popFirst() ?? "").trimmingSpaces()
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, HTTPToken.isToken(parts[0]), HTTPToken.isToken(parts[1]) else {
            throw HTTPParseError(.invalidMediaType, in: location)
        }
        var parameters: [(name: String, value: String)] = []
        for piece in pieces {
            let trimmed = piece.trimmingSpaces()
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "="), HTTPToken.isToken(trimmed[..<equals]) else {
                throw HTTPParseError(.invalidMediaType, in: location)
            }
            var value = trimmed[trimmed.index(after: equals)...]
            if value.first == "\"" {
                guard value.count >= 2, value.last == "\"" else {
                    throw HTTPParseError(.invalidMediaType, in: location)
                }
                value = value.dropFirst().dropLast()
            }
            parameters.append((String(trimmed[..<equals]), String(value)))
        }
        self.init(type: String(parts[0]), subtype: String(parts[1]), parameters: parameters)
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

    /// `type/subtype; name=value`.
    public var description: String {
        parameters.reduce("\(type)/\(subtype)") { "\($0); \($1.name)=\($1.value)" }
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
