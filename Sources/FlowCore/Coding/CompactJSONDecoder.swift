/// Decodes `Decodable` values from JSON without Foundation. Give trees their registry:
/// `CompactJSONDecoder(userInfo: [.flowRegistry: app.registry])`.
///
/// With `lenientScalars`, a string decodes where a number or a boolean is expected when it
/// spells one (`"42"`, `"1.5"`, `"true"`): form fields become typed values this way.
public struct CompactJSONDecoder: @unchecked Sendable {
    // @unchecked: `userInfo` holds what callers put in it, by the Decoder protocol's type
    // (`Any`); FlowCore only puts its Sendable FlowRegistry there and never mutates it.
    /// What `init(from:)` implementations find in `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: Any]
    /// Whether strings may decode as numbers and booleans.
    public var lenientScalars: Bool

    /// A decoder.
    public init(userInfo: [CodingUserInfoKey: Any] = [:], lenientScalars: Bool = false) {
        self.userInfo = userInfo
        self.lenientScalars = lenientScalars
    }

    /// Decodes a `T` from a parsed value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSON) throws -> T {
        try T(from: JSONValueDecoder(value: value, codingPath: [], userInfo: userInfo, lenient: lenientScalars))
    }

    /// Decodes a `T` from `bytes`.
    ///
    /// - Throws: `DecodingError` for malformed JSON (with the byte offset) or a mismatched
    ///   shape; whatever `T.init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let value: JSON
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
        }
        return try decode(type, from: value)
    }
}

struct JSONValueDecoder: Decoder {
    let value: JSON
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    let lenient: Bool

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let fields) = value else { throw mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(Keyed<Key>(fields: fields, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Any].self, value, codingPath) }
        return Unkeyed(items: items, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    func child(_ value: JSON, _ key: any CodingKey) -> JSONValueDecoder {
        JSONValueDecoder(value: value, codingPath: codingPath + [key], userInfo: userInfo, lenient: lenient)
    }

    // MARK: Scalars

    func bool(_ value: JSON, _ path: [any CodingKey]) throws -> Bool {
        if case .bool(let flag) = value { return flag }
        if lenient, case .string(let text) = value {
            switch text.lowercased() {
            case "true", "on", "1", "yes": return true
            case "false", "off", "0", "no": return false
            default: break
            }
        }
        throw mismatch(Bool.self, value, path)
    }

    func string(_ value: JSON, _ path: [any CodingKey]) throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, value, path) }
        return text
    }

    func double(_ value: JSON, _ path: [any CodingKey]) throws -> Double {
        switch value {
        case .double(let number): return number
        case .int(let number): return Double(number)
        case .string(let text) where lenient:
            guard let number = Double(text.trimmingSpaces), number.isFinite else {
                throw mismatch(Double.self, value, path)
            }
            return number
        default: throw mismatch(Double.self, value, path)
        }
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSON, _ path: [any CodingKey]) throws -> I {
        let exact: I?
        switch value {
        case .int(let number): exact = I(exactly: number)
        case .double(let number): exact = I(exactly: number)
        case .string(let text) where lenient:
            guard let number = I(text.trimmingSpaces) else { throw mismatch(I.self, value, path) }
            exact = number
        default: throw mismatch(I.self, value, path)
        }
        guard let exact else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path, debugDescription: "\(value) does not fit in \(I.self)"))
        }
        return exact
    }

    func mismatch(_ type: Any.Type, _ value: JSON, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(value)"))
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [(key: String, value: JSON)]
        let decoder: JSONValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { fields.compactMap { Key(stringValue: $0.key) } }

        func contains(_ key: Key) -> Bool { find(key) != nil }

        private func find(_ key: Key) -> JSON? {
            let name = key.stringValue
            for field in fields where field.key == name { return field.value }
            return nil
        }

        private func value(_ key: Key) throws -> JSON {
            guard let value = find(key) else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "no value for \"\(key.stringValue)\""))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try value(key) { return true }
            return false
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            try decoder.bool(value(key), codingPath + [key])
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try decoder.string(value(key), codingPath + [key])
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try decoder.double(value(key), codingPath + [key])
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            Float(try decoder.double(value(key), codingPath + [key]))
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            try decoder.integer(Int.self, value(key), codingPath + [key])
        }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
            try decoder.integer(Int8.self, value(key), codingPath + [key])
        }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
            try decoder.integer(Int16.self, value(key), codingPath + [key])
        }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
            try decoder.integer(Int32.self, value(key), codingPath + [key])
        }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
            try decoder.integer(Int64.self, value(key), codingPath + [key])
        }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
            try decoder.integer(UInt.self, value(key), codingPath + [key])
        }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
            try decoder.integer(UInt8.self, value(key), codingPath + [key])
        }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
            try decoder.integer(UInt16.self, value(key), codingPath + [key])
        }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
            try decoder.integer(UInt32.self, value(key), codingPath + [key])
        }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
            try decoder.integer(UInt64.self, value(key), codingPath + [key])
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try T(from: decoder.child(value(key), key))
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let found = find(key) else { return nil }
            if case .null = found { return nil }
            return try T(from: decoder.child(found, key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try decoder.child(value(key), key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder.child(value(key), key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { try superDecoder(forKey: Key(stringValue: "super")!) }

        func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(find(key) ?? .null, key) }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSON]
        let decoder: JSONValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }
        private(set) var currentIndex = 0

        init(items: [JSON], decoder: JSONValueDecoder) {
            self.items = items
            self.decoder = decoder
        }

        private mutating func next() throws -> (JSON, IndexKey) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self,
                    .init(codingPath: codingPath, debugDescription: "the array has only \(items.count) elements"))
            }
            defer { currentIndex += 1 }
            return (items[currentIndex], IndexKey(currentIndex))
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, case .null = items[currentIndex] else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool {
            let (v, k) = try next()
            return try decoder.bool(v, codingPath + [k])
        }
        mutating func decode(_ type: String.Type) throws -> String {
            let (v, k) = try next()
            return try decoder.string(v, codingPath + [k])
        }
        mutating func decode(_ type: Double.Type) throws -> Double {
            let (v, k) = try next()
            return try decoder.double(v, codingPath + [k])
        }
        mutating func decode(_ type: Int.Type) throws -> Int {
            let (v, k) = try next()
            return try decoder.integer(Int.self, v, codingPath + [k])
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, key) = try next()
            return try T(from: decoder.child(value, key))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            let (value, key) = try next()
            return try decoder.child(value, key).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, key) = try next()
            return try decoder.child(value, key).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, key) = try next()
            return decoder.child(value, key)
        }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: JSONValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool {
            if case .null = decoder.value { return true }
            return false
        }

        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(decoder.value, codingPath) }
        func decode(_ type: String.Type) throws -> String { try decoder.string(decoder.value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double(decoder.value, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { Float(try decoder.double(decoder.value, codingPath)) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(Int.self, decoder.value, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(Int8.self, decoder.value, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(Int16.self, decoder.value, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(Int32.self, decoder.value, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(Int64.self, decoder.value, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(UInt.self, decoder.value, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(UInt8.self, decoder.value, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 {
            try decoder.integer(UInt16.self, decoder.value, codingPath)
        }
        func decode(_ type: UInt32.Type) throws -> UInt32 {
            try decoder.integer(UInt32.self, decoder.value, codingPath)
        }
        func decode(_ type: UInt64.Type) throws -> UInt64 {
            try decoder.integer(UInt64.self, decoder.value, codingPath)
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
