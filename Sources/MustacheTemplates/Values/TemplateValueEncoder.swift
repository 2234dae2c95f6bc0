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

    /// The template value of `model`: its own ``TemplateValueConvertible/templateValue`` when it
    /// builds one, its encoded form otherwise.
    public func encode<Model: Encodable>(_ model: Model) throws -> TemplateValue {
        // The type is asked, not the value: casting a value to an existential boxes a large one.
        if let convertible = Model.self as? any TemplateValueConvertible.Type {
            return withUnsafePointer(to: model) { convertible.templateValue(at: UnsafeRawPointer($0)) }
        }
        return try ValueEncoder.encode(model)
    }
}

/// Encodes one value. Containers write into it; ``resolved`` reads the result once encoding
/// returned. A class, because the `Encoder` protocol hands out containers that write back.
///
/// Its stored properties skip dynamic exclusivity checks: an encoder is used by one synchronous
/// `encode(to:)` call chain at a time and never shared, so accesses cannot overlap.
///
/// Values encoded one after another under the same parent (a list's items, a struct's fields)
/// reuse one child encoder, ``spare``: encoding allocates an encoder per nesting level, not per
/// value, and a child sizes its next object like its last one. Root encoders are kept, one per
/// thread, for the next model (``IdleRootEncoder``).
final class ValueEncoder: Encoder {
    enum Kind { case empty, value, object, list }

    @exclusivity(unchecked) private(set) var kind = Kind.empty
    @exclusivity(unchecked) private var value = TemplateValue.null
    @exclusivity(unchecked) private var object = TemplateObject()
    @exclusivity(unchecked) private var items: [TemplateValue] = []
    /// Containers handed out by `nestedContainer` and friends, read when resolving.
    @exclusivity(unchecked) private var pendingFields: [(String, ValueEncoder)] = []
    @exclusivity(unchecked) private var pendingItems: [(Int, ValueEncoder)] = []
    /// The child encoder kept for the next nested value; `nil` while it is in use.
    @exclusivity(unchecked) private var spare: ValueEncoder?
    /// How many fields this encoder's last object had: the next one reserves as many.
    @exclusivity(unchecked) private var lastFieldCount = 8
    @exclusivity(unchecked) private var parent: ValueEncoder?
    /// The keyed container this encoder handed out last and its key type: the next object with
    /// the same keys (a list's next item) gets it again. Building a container instantiates two
    /// generic types at run time (a metadata lookup each), about a tenth of all encoding time.
    @exclusivity(unchecked) private var keyedContainer: (keys: ObjectIdentifier, box: AnyObject)?
    @exclusivity(unchecked) private var key: (any CodingKey)?

    init(parent: ValueEncoder?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
    }

    /// Encodes a top-level model, with the calling thread's idle root encoder when it has one.
    static func encode<T: Encodable>(_ model: T) throws -> TemplateValue {
        let root = IdleRootEncoder.take() ?? ValueEncoder(parent: nil, key: nil)
        defer { IdleRootEncoder.putBack(root) }
        try model.encode(to: root)
        return root.resolved()
    }

    /// Encodes `model` nested under this encoder, at `key`, with the spare child.
    func encodeNested<T: Encodable>(_ model: T, key: (any CodingKey)?) throws -> TemplateValue {
        let child = spare ?? ValueEncoder(parent: self, key: nil)
        spare = nil
        child.key = key
        defer {
            child.reset()
            spare = child
        }
        try model.encode(to: child)
        return child.resolved()
    }

    /// Empties this encoder for its next value, keeping its own spare child.
    func reset() {
        for (_, encoder) in pendingFields { encoder.detachChildren() }
        for (_, encoder) in pendingItems { encoder.detachChildren() }
        pendingFields = []
        pendingItems = []
        kind = .empty
        value = .null
        items = []
    }

    /// Drops the spare child and the nested containers (and theirs), ending the parent–child
    /// reference cycles.
    func detachChildren() {
        reset()
        spare?.detachChildren()
        spare = nil
        parent = nil
        keyedContainer = nil
    }

    /// The encoded value, moved out of the encoder; nested containers handed out earlier are
    /// read now.
    func resolved() -> TemplateValue {
        switch kind {
        case .empty: return .null
        case .value: return value
        case .object:
            for (key, encoder) in pendingFields { object[key] = encoder.resolved() }
            var taken = TemplateObject()
            swap(&taken, &object)
            lastFieldCount = taken.count
            return .object(taken)
        case .list:
            for (index, encoder) in pendingItems { items[index] = encoder.resolved() }
            var taken: [TemplateValue] = []
            swap(&taken, &items)
            return .list(taken)
        }
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var current: ValueEncoder? = self
        while let encoder = current {
            if let key = encoder.key { path.append(key) }
            current = encoder.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if kind != .object {
            kind = .object
            object = TemplateObject(capacity: lastFieldCount)
        }
        // A `KeyedEncodingContainer` is a single reference to its box, and the box only refers
        // back to this encoder, so the same box serves every object with these keys. (The cycle
        // it forms with this encoder is broken by `detachChildren`.)
        if let cached = keyedContainer, cached.keys == ObjectIdentifier(Key.self) {
            return unsafeBitCast(cached.box, to: KeyedEncodingContainer<Key>.self)
        }
        return makeKeyedContainer(keyedBy: Key.self)
    }

    /// A new keyed container, kept as ``keyedContainer``; apart, so that the cached path does not
    /// instantiate the container's types.
    @inline(never)
    private func makeKeyedContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let container = KeyedEncodingContainer(KeyedValueContainer<Key>(encoder: self))
        keyedContainer = (ObjectIdentifier(Key.self), unsafeBitCast(container, to: AnyObject.self))
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if kind != .list {
            kind = .list
            items.reserveCapacity(8)
        }
        return UnkeyedValueContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    func setSingle(_ single: TemplateValue) {
        kind = .value
        value = single
    }

    func set(_ key: String, _ value: TemplateValue) { object.append(key, value) }

    func setLater(_ key: String, _ encoder: ValueEncoder) { pendingFields.append((key, encoder)) }

    func append(_ value: TemplateValue) { items.append(value) }

    func appendDeferred(_ encoder: ValueEncoder) {
        pendingItems.append((items.count, encoder))
        items.append(.null)
    }

    var itemCount: Int { items.count }
}

struct KeyedValueContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) { encoder.set(key.stringValue, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) { encoder.set(key.stringValue, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) { encoder.set(key.stringValue, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) { encoder.set(key.stringValue, .double(value)) }
    mutating func encode(_ value: Float, forKey key: Key) { encoder.set(key.stringValue, .double(Double(value))) }
    mutating func encode(_ value: Int, forKey key: Key) { encoder.set(key.stringValue, .int(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) { encoder.set(key.stringValue, .int(Int(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) { encoder.set(key.stringValue, .int(Int(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) { encoder.set(key.stringValue, .int(Int(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) { encoder.set(key.stringValue, .int(Int(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) {
        encoder.set(key.stringValue, .int(Int(truncatingIfNeeded: value)))
    }
    mutating func encode(_ value: UInt8, forKey key: Key) { encoder.set(key.stringValue, .int(Int(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) { encoder.set(key.stringValue, .int(Int(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) { encoder.set(key.stringValue, .int(Int(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) {
        encoder.set(key.stringValue, .int(Int(truncatingIfNeeded: value)))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.set(key.stringValue, try encoder.encodeNested(value, key: key))
    }

    // `nil` optionals become explicit nulls (see TemplateValueEncoder).
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
        encoder.set(key.stringValue, value.map { .string($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
        encoder.set(key.stringValue, value.map { .bool($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
        encoder.set(key.stringValue, value.map { .double($0) } ?? .null)
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encoder.set(key.stringValue, .null) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ValueEncoder(parent: encoder, key: key)
        encoder.setLater(key.stringValue, nested)
        return nested.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ValueEncoder(parent: encoder, key: key)
        encoder.setLater(key.stringValue, nested)
        return nested.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let nested = ValueEncoder(parent: encoder, key: key)
        encoder.setLater(key.stringValue, nested)
        return nested
    }
}

/// An integer coding key for list positions.
private struct IndexKey: CodingKey {
    var stringValue: String { String(intValue!) }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

struct UnkeyedValueContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.itemCount }

    mutating func encodeNil() { encoder.append(.null) }
    mutating func encode(_ value: Bool) { encoder.append(.bool(value)) }
    mutating func encode(_ value: String) { encoder.append(.string(value)) }
    mutating func encode(_ value: Double) { encoder.append(.double(value)) }
    mutating func encode(_ value: Int) { encoder.append(.int(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.append(try encoder.encodeNested(value, key: IndexKey(count)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let nested = ValueEncoder(parent: encoder, key: IndexKey(count))
        encoder.appendDeferred(nested)
        return nested.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ValueEncoder(parent: encoder, key: IndexKey(count))
        encoder.appendDeferred(nested)
        return nested.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let nested = ValueEncoder(parent: encoder, key: IndexKey(count))
        encoder.appendDeferred(nested)
        return nested
    }
}

struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() { encoder.setSingle(.null) }
    mutating func encode(_ value: Bool) { encoder.setSingle(.bool(value)) }
    mutating func encode(_ value: String) { encoder.setSingle(.string(value)) }
    mutating func encode(_ value: Double) { encoder.setSingle(.double(value)) }
    mutating func encode(_ value: Float) { encoder.setSingle(.double(Double(value))) }
    mutating func encode(_ value: Int) { encoder.setSingle(.int(value)) }
    mutating func encode(_ value: Int8) { encoder.setSingle(.int(Int(value))) }
    mutating func encode(_ value: Int16) { encoder.setSingle(.int(Int(value))) }
    mutating func encode(_ value: Int32) { encoder.setSingle(.int(Int(value))) }
    mutating func encode(_ value: Int64) { encoder.setSingle(.int(Int(value))) }
    mutating func encode(_ value: UInt) { encoder.setSingle(.int(Int(truncatingIfNeeded: value))) }
    mutating func encode(_ value: UInt8) { encoder.setSingle(.int(Int(value))) }
    mutating func encode(_ value: UInt16) { encoder.setSingle(.int(Int(value))) }
    mutating func encode(_ value: UInt32) { encoder.setSingle(.int(Int(value))) }
    mutating func encode(_ value: UInt64) { encoder.setSingle(.int(Int(truncatingIfNeeded: value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.setSingle(try encoder.encodeNested(value, key: nil))
    }
}
