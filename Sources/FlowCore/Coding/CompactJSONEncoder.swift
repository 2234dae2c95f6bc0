/// Encodes `Encodable` values (trees, flow states, steps, API documents) as compact JSON without
/// Foundation: an `Encoder` that writes into a ``JSON`` value, then the bytes.
public struct CompactJSONEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// The JSON bytes of `value`.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try encodeValue(value).bytes
    }

    /// The JSON value of `value`.
    public func encodeValue<T: Encodable>(_ value: T) throws -> JSON {
        try JSONValueEncoder.value(of: value, parent: nil, key: nil)
    }
}

/// Encodes one value into a ``JSON``. A class because the `Encoder` protocol hands out
/// containers that write back.
final class JSONValueEncoder: Encoder {
    enum Kind { case empty, single, object, array }

    private var kind = Kind.empty
    private var single = JSON.null
    private var fields: [(key: String, value: JSON)] = []
    private var items: [JSON] = []
    private var pendingFields: [(String, JSONValueEncoder)] = []
    private var pendingItems: [(Int, JSONValueEncoder)] = []
    private let parent: JSONValueEncoder?
    private let key: (any CodingKey)?

    init(parent: JSONValueEncoder?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
    }

    static func value<T: Encodable>(of value: T, parent: JSONValueEncoder?, key: (any CodingKey)?) throws -> JSON {
        if let json = value as? JSON { return json }  // written already
        let encoder = JSONValueEncoder(parent: parent, key: key)
        // Nested containers reference their parent, which holds them until resolved: break
        // those cycles afterwards, or every encoding with nested containers would leak.
        defer { encoder.detachNested() }
        try value.encode(to: encoder)
        return encoder.resolved
    }

    /// Drops the nested containers (and theirs), ending the parent–child reference cycles.
    private func detachNested() {
        for (_, encoder) in pendingFields { encoder.detachNested() }
        for (_, encoder) in pendingItems { encoder.detachNested() }
        pendingFields = []
        pendingItems = []
    }

    var resolved: JSON {
        switch kind {
        case .empty: return .object([])
        case .single: return single
        case .object:
            for (name, encoder) in pendingFields { fields.append((name, encoder.resolved)) }
            return .object(fields)
        case .array:
            for (index, encoder) in pendingItems { items[index] = encoder.resolved }
            return .array(items)
        }
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var current: JSONValueEncoder? = self
        while let encoder = current {
            if let key = encoder.key { path.append(key) }
            current = encoder.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        kind = .object
        return KeyedEncodingContainer(Keyed<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        kind = .array
        return Unkeyed(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }

    func set(_ value: JSON) {
        kind = .single
        single = value
    }

    fileprivate func add(_ name: String, _ value: JSON) { fields.append((name, value)) }
    fileprivate func addLater(_ name: String, _ encoder: JSONValueEncoder) { pendingFields.append((name, encoder)) }
    fileprivate func append(_ value: JSON) { items.append(value) }
    fileprivate func appendLater(_ encoder: JSONValueEncoder) {
        pendingItems.append((items.count, encoder))
        items.append(.null)
    }
    fileprivate var count: Int { items.count }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: JSONValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil(forKey key: Key) { encoder.add(key.stringValue, .null) }
        mutating func encode(_ value: Bool, forKey key: Key) { encoder.add(key.stringValue, .bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) { encoder.add(key.stringValue, .string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) { encoder.add(key.stringValue, .double(value)) }
        mutating func encode(_ value: Float, forKey key: Key) { encoder.add(key.stringValue, .double(Double(value))) }
        mutating func encode(_ value: Int, forKey key: Key) { encoder.add(key.stringValue, .int(value)) }
        mutating func encode(_ value: Int8, forKey key: Key) { encoder.add(key.stringValue, .int(Int(value))) }
        mutating func encode(_ value: Int16, forKey key: Key) { encoder.add(key.stringValue, .int(Int(value))) }
        mutating func encode(_ value: Int32, forKey key: Key) { encoder.add(key.stringValue, .int(Int(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) { encoder.add(key.stringValue, .int(Int(value))) }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            encoder.add(key.stringValue, .int(try exact(value, key)))
        }
        mutating func encode(_ value: UInt8, forKey key: Key) { encoder.add(key.stringValue, .int(Int(value))) }
        mutating func encode(_ value: UInt16, forKey key: Key) { encoder.add(key.stringValue, .int(Int(value))) }
        mutating func encode(_ value: UInt32, forKey key: Key) { encoder.add(key.stringValue, .int(Int(value))) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            encoder.add(key.stringValue, .int(try exact(value, key)))
        }

        private func exact<I: BinaryInteger>(_ value: I, _ key: Key) throws -> Int {
            guard let exact = Int(exactly: value) else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: codingPath + [key], debugDescription: "\(value) does not fit in an Int"))
            }
            return exact
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            encoder.add(key.stringValue, try JSONValueEncoder.value(of: value, parent: encoder, key: key))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let nested = JSONValueEncoder(parent: encoder, key: key)
            encoder.addLater(key.stringValue, nested)
            return nested.container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = JSONValueEncoder(parent: encoder, key: key)
            encoder.addLater(key.stringValue, nested)
            return nested.unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let nested = JSONValueEncoder(parent: encoder, key: key)
            encoder.addLater(key.stringValue, nested)
            return nested
        }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: JSONValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { encoder.count }

        mutating func encodeNil() { encoder.append(.null) }
        mutating func encode(_ value: Bool) { encoder.append(.bool(value)) }
        mutating func encode(_ value: String) { encoder.append(.string(value)) }
        mutating func encode(_ value: Double) { encoder.append(.double(value)) }
        mutating func encode(_ value: Int) { encoder.append(.int(value)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.append(try JSONValueEncoder.value(of: value, parent: encoder, key: IndexKey(count)))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
            NestedKey
        > {
            let nested = JSONValueEncoder(parent: encoder, key: IndexKey(count))
            encoder.appendLater(nested)
            return nested.container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = JSONValueEncoder(parent: encoder, key: IndexKey(count))
            encoder.appendLater(nested)
            return nested.unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let nested = JSONValueEncoder(parent: encoder, key: IndexKey(count))
            encoder.appendLater(nested)
            return nested
        }
    }

    private struct Single: SingleValueEncodingContainer {
        let encoder: JSONValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() { encoder.set(.null) }
        mutating func encode(_ value: Bool) { encoder.set(.bool(value)) }
        mutating func encode(_ value: String) { encoder.set(.string(value)) }
        mutating func encode(_ value: Double) { encoder.set(.double(value)) }
        mutating func encode(_ value: Float) { encoder.set(.double(Double(value))) }
        mutating func encode(_ value: Int) { encoder.set(.int(value)) }
        mutating func encode(_ value: Int8) { encoder.set(.int(Int(value))) }
        mutating func encode(_ value: Int16) { encoder.set(.int(Int(value))) }
        mutating func encode(_ value: Int32) { encoder.set(.int(Int(value))) }
        mutating func encode(_ value: Int64) { encoder.set(.int(Int(value))) }
        mutating func encode(_ value: UInt) throws { encoder.set(.int(try exact(value))) }
        mutating func encode(_ value: UInt8) { encoder.set(.int(Int(value))) }
        mutating func encode(_ value: UInt16) { encoder.set(.int(Int(value))) }
        mutating func encode(_ value: UInt32) { encoder.set(.int(Int(value))) }
        mutating func encode(_ value: UInt64) throws { encoder.set(.int(try exact(value))) }

        private func exact<I: BinaryInteger>(_ value: I) throws -> Int {
            guard let exact = Int(exactly: value) else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: codingPath, debugDescription: "\(value) does not fit in an Int"))
            }
            return exact
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.set(try JSONValueEncoder.value(of: value, parent: encoder, key: nil))
        }
    }
}

/// An integer coding key for array positions.
struct IndexKey: CodingKey {
    var stringValue: String { String(intValue!) }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
