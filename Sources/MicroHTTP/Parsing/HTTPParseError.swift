/// Input that a strict parser refused: malformed percent-encoding, invalid UTF-8, too many
/// fields, a malformed request target or media type. The web layer turns these into `400`
/// (or `413` for ``Code/tooManyFields``) with ``description`` as the message.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of input was refused; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case invalidPercentEncoding = "invalid percent-encoding"
            case invalidUTF8 = "invalid UTF-8"
            case tooManyFields = "too many fields"
            case invalidTarget = "invalid request target"
            case invalidMediaType = "invalid media type"
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        public var description: String { value.rawValue }

        /// A `%` not followed by two hexadecimal digits.
        public static let invalidPercentEncoding = Code(.invalidPercentEncoding)
        /// Bytes that do not decode as UTF-8 (or that hold a NUL).
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// More fields than the configured limit.
        public static let tooManyFields = Code(.tooManyFields)
        /// A request target that is neither an absolute path nor an absolute URL.
        public static let invalidTarget = Code(.invalidTarget)
        /// A `Content-Type` or `Accept` value that is not `type/subtype;params`.
        public static let invalidMediaType = Code(.invalidMediaType)
    }

    /// What kind of input was refused.
    public let code: Code
    /// Where: `"path"`, `"query"`, `"form field \"name\""`, `"Content-Type"`, …
    public let location: String
    /// The byte offset of the problem within the parsed text, when it is known.
    public let offset: Int?

    /// Creates an error; `location` names the part of the request that was refused.
    public init(_ code: Code, in location: String, at offset: Int? = nil) {
        self.code = code
        self.location = location
        self.offset = offset
    }

    /// A one-line message a client can act on, e.g. `invalid percent-encoding in query at byte 7`.
    public var description: String {
        if let offset { return "\(code) in \(location) at byte \(offset)" }
        return "\(code) in \(location)"
    }
}
