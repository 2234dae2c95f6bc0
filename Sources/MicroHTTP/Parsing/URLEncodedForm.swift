/// One decoded `name=value` pair of a query string or an urlencoded form.
public struct FormField: Sendable, Hashable {
    /// The decoded field name.
    public var name: String
    /// The decoded value; empty for `name` or `name=`.
    public var value: String

    /// A field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Strict parser for `application/x-www-form-urlencoded` bodies and query strings.
///
/// ```swift
/// let fields = try URLEncodedForm.parse(Array("name=Ada+L&x=%C3%A9".utf8))
/// // [FormField(name: "name", value: "Ada L"), FormField(name: "x", value: "é")]
/// ```
public enum URLEncodedForm {
    /// The default limit on the number of fields.
    public static let defaultMaxFields = 1000

    /// Splits on `&`, then on the first `=`, and decodes both sides (`+` is a space).
    /// Empty pieces (`a=1&&b=2`) are skipped; field order is kept.
    ///
    /// - Throws: ``HTTPParseError`` (`invalidPercentEncoding`, `invalidUTF8`, `tooManyFields`).
    public static func parse<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, maxFields: Int = defaultMaxFields, location: String = "form"
    ) throws(HTTPParseError) -> [FormField] where Bytes.SubSequence: Collection<UInt8> {
        // Parsed from contiguous bytes by code compiled for them: called from another module,
        // this generic function runs unspecialised, a witness-table call per byte.
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(HTTPParseError) in try parse(buffer, maxFields: maxFields, location: location) }
        }
        if let parsed { return try parsed.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(HTTPParseError) in
            try parse(buffer, maxFields: maxFields, location: location)
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxFields: Int, location: String)
        throws(HTTPParseError) -> [FormField]
    {
        var fields: [FormField] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            defer { start = end + 1 }
            guard end > start else { continue }  // an empty piece
            guard fields.count < maxFields else {
                throw HTTPParseError(.tooManyFields, in: "\(location) (limit \(maxFields))")
            }
            let piece = bytes[start..<end]
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let rawName = piece[start..<(equals ?? end)]
            let rawValue = piece[(equals.map { $0 + 1 } ?? end)..<end]
            let name = try PercentDecoding.decode(rawName, plusAsSpace: true, location: location)
            let value = try PercentDecoding.decode(
                rawValue, plusAsSpace: true, location: "\(location) field \"\(name)\"")
            fields.append(FormField(name: name, value: value))
        }
        return fields
    }
}
