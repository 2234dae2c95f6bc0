/// An ordered list of header fields with case-insensitive, multi-valued lookup.
///
/// ```swift
/// var headers = HTTPHeaders()
/// headers.add("Set-Cookie", "a=1; Path=/")
/// headers.add("Set-Cookie", "b=2; Path=/")
/// headers["content-type"] = "text/html; charset=utf-8"
/// headers.values(for: "set-cookie") // ["a=1; Path=/", "b=2; Path=/"]
/// ```
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as sent.
    public struct Field: Sendable, Equatable {
        /// The field name, as written by whoever added it.
        public var name: String
        /// The field value.
        public var value: String
    }

    private var fields: [Field] = []

    /// An empty header list.
    public init() {}

    /// Headers from literal pairs, in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Appends a field, keeping any earlier field of the same name (e.g. several `Set-Cookie`).
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// The first value for `name` (case-insensitive); setting replaces every field of that name,
    /// and setting `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            fields.removeAll { Self.same($0.name, name) }
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Calls `body` with each field's name and value, in order, reading them in place: unlike
    /// iterating, it holds no reference to the fields of its own.
    package func forEachField(_ body: (String, String) -> Void) {
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices { body(fields[index].name, fields[index].value) }
        }
    }

    /// Whether `name` is a valid field name token and `value` holds no CR, LF or NUL:
    /// the server refuses to send fields that fail this check.
    public static func isValid(name: String, value: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy(HTTPToken.isTokenByte)
            && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// Whether two field names are equal ignoring ASCII case (names are tokens: ASCII only),
    /// compared byte by byte, without lowercased copies.
    static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return a.utf8.elementsEqual(b.utf8) { x, y in
            if x == y { return true }
            let lower = x | 0x20  // a letter's lowercase form
            return lower == y | 0x20 && lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
        }
    }
}

/// The `token` grammar of RFC 9110, shared by header names and media types.
enum HTTPToken {
    static func isTokenByte(_ byte: UInt8) -> Bool {
        // One switch over byte values (a table lookup once compiled); it runs for every byte of
        // every response header name.
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }
}
