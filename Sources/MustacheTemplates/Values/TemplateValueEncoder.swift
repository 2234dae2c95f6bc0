/// Turns an `Encodable` view model into a ``TemplateValue`` without `Mirror` or JSON: a small
/// `Encoder` that writes straight into template values.
///
/// `nil` optionals become explicit `null`s, so a missing field renders empty instead of being
/// looked up in an outer context by accident. Dates and other types encode as their `Codable`
/// form does (a `Date` becomes a number); format them in the view model.
///
/// ```swift
/// struct MoviePage: Encodable { var title: String; var year: Int; var cast: [String] }
/// let value = try TemplateValueEncoder().encode(MoviePage(title: "Alien", year: 1979, cast: []))
/// ```
public struct TemplateValueEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// The template value of `model`.
    public func encode<Model: Encodable>(_ model: Model) throws -> TemplateValue {
        let encoder = ValueEncoder(codingPath: [])
        try model.encode(to: encoder)
        return encoder.slot.resolved
    }
}

/// Where an encoded value goes: filled once, possibly with a container still being written.
final class Slot {
    enum Content {
        case empty
        case value(TemplateValue)
        case object(ObjectBuffer)
        case list(ListBuffer)
    }
    var content = Content.empty

    var resolved: TemplateValue {
        switch content {
        case .empty: .null
        case .value(let value): value
        case .object(let buffer): buffer.resolved
        case .list(let buffer): buffer.resolved
        }
    }
}

final class ObjectBuffer {
    var values: [String: TemplateValue] = [:]
    var pending: [String: Slot] = [:]

    var resolved: TemplateValue {
        var result = values
        for (key, slot) in pending { result[key] = slot.resolved }
        return .object(result)
    }
}

final class ListBuffer {
    var items: [Slot] = []
    var resolved: TemplateValue { .list(items.map(\.resolved)) }
}

struct ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let slot: Slot

    init(codingPath: [any CodingKey], slot: Slot = Slot()) {
        self.codingPath = codingPath
        self.slot = slot
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let buffer: ObjectBuffer
        if case .object(let existing) = slot.content {
            buffer = existing
        } else {
            buffer = ObjectBuffer()
            slot.content = .object(buffer)
        }
        return KeyedEncodingContainer(KeyedValueContainer<Key>(codingPath: codingPath, buffer: buffer))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let buffer: ListBuffer
        if case .list(let existing) = slot.content {
            buffer = existing
        } else {
            buffer = ListBuffer()
            slot.content = .list(buffer)
        }
        return UnkeyedValueContainer(codingPath: codingPath, buffer: buffer)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(codingPath: codingPath, slot: slot)
    }
}

struct KeyedValueContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let codingPath: [any CodingKey]
    let buffer: ObjectBuffer

    mutating func encodeNil(forKey key: Key) { buffer.values[key.stringValue] = .null }
    mutating func encode(_ value: Bool, forKey key: Key) { buffer.values[key.stringValue] = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) { buffer.values[key.stringValue] = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) { buffer.values[key.stringValue] = .double(value) }
    mutating func encode(_ value: Float, forKey key: Key) { buffer.values[key.stringValue] = .double(Double(value)) }
    mutating func encode(_ value: Int, forKey key: Key) { buffer.values[key.stringValue] = .int(value) }
    mutating func encode(_ value: Int8, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(truncatingIfNeeded: value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) { buffer.values[key.stringValue] = .int(Int(truncatingIfNeeded: value)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let slot = Slot()
        try value.encode(to: ValueEncoder(codingPath: codingPath + [key], slot: slot))
        if case .value(let plain) = slot.content {
            buffer.values[key.stringValue] = plain
        } else {
            buffer.pending[key.stringValue] = slot
        }
    }

    // `nil` optionals become explicit nulls (see TemplateValueEncoder).
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
        buffer.values[key.stringValue] = value.map { .string($0) } ?? .null
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
        buffer.values[key.stringValue] = value.map { .int($0) } ?? .null
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
        buffer.values[key.stringValue] = value.map { .bool($0) } ?? .null
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
        buffer.values[key.stringValue] = value.map { .double($0) } ?? .null
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { buffer.values[key.stringValue] = .null }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let slot = Slot()
        buffer.pending[key.stringValue] = slot
        return ValueEncoder(codingPath: codingPath + [key], slot: slot).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let slot = Slot()
        buffer.pending[key.stringValue] = slot
        return ValueEncoder(codingPath: codingPath + [key], slot: slot).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let slot = Slot()
        buffer.pending[key.stringValue] = slot
        return ValueEncoder(codingPath: codingPath + [key], slot: slot)
    }
}

struct UnkeyedValueContainer: UnkeyedEncodingContainer {
    let codingPath: [any CodingKey]
    let buffer: ListBuffer
    var count: Int { buffer.items.count }

    private func append(_ value: TemplateValue) {
        let slot = Slot()
        slot.content = .value(value)
        buffer.items.append(slot)
    }

    mutating func encodeNil() { append(.null) }
    mutating func encode(_ value: Bool) { append(.bool(value)) }
    mutating func encode(_ value: String) { append(.string(value)) }
    mutating func encode(_ value: Double) { append(.double(value)) }
    mutating func encode(_ value: Int) { append(.int(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let slot = Slot()
        buffer.items.append(slot)
        try value.encode(to: ValueEncoder(codingPath: codingPath, slot: slot))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let slot = Slot()
        buffer.items.append(slot)
        return ValueEncoder(codingPath: codingPath, slot: slot).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let slot = Slot()
        buffer.items.append(slot)
        return ValueEncoder(codingPath: codingPath, slot: slot).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let slot = Slot()
        buffer.items.append(slot)
        return ValueEncoder(codingPath: codingPath, slot: slot)
    }
}

struct SingleValueContainer: SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    let slot: Slot

    mutating func encodeNil() { slot.content = .value(.null) }
    mutating func encode(_ value: Bool) { slot.content = .value(.bool(value)) }
    mutating func encode(_ value: String) { slot.content = .value(.string(value)) }
    mutating func encode(_ value: Double) { slot.content = .value(.double(value)) }
    mutating func encode(_ value: Float) { slot.content = .value(.double(Double(value))) }
    mutating func encode(_ value: Int) { slot.content = .value(.int(value)) }
    mutating func encode(_ value: Int8) { slot.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int16) { slot.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int32) { slot.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int64) { slot.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt) { slot.content = .value(.int(Int(truncatingIfNeeded: value))) }
    mutating func encode(_ value: UInt8) { slot.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt16) { slot.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt32) { slot.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt64) { slot.content = .value(.int(Int(truncatingIfNeeded: value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: ValueEncoder(codingPath: codingPath, slot: slot))
    }
}
