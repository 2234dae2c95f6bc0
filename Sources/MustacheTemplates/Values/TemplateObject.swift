/// The named values of an object in a template context, in insertion order.
///
/// View models have a handful of short keys, so a linear search over a small array beats
/// hashing: no hash to compute, and small strings compare in two machine words.
public struct TemplateObject: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// The fields in order; a later field with an existing key replaces it through ``subscript(_:)``.
    public var fields: [(key: String, value: TemplateValue)] {
        storage.map { ($0.key, $0.value) }
    }

    /// Fields with a cheap hash of their key, compared before the key itself.
    private var storage: [Field]

    struct Field: Sendable {
        var tag: UInt32
        var key: String
        var value: TemplateValue
    }

    /// An empty object with room for `capacity` fields.
    public init(capacity: Int = 0) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    /// An object from literal pairs.
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self.init(capacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// An object from a dictionary (keys sorted, for a stable order).
    public init(_ dictionary: [String: TemplateValue]) {
        self.init(capacity: dictionary.count)
        for key in dictionary.keys.sorted() { append(key, dictionary[key]!) }
    }

    /// The number of fields.
    public var count: Int { storage.count }

    /// The value of `key`; setting replaces it, or appends a new field.
    public subscript(key: String) -> TemplateValue? {
        get { self[key, tag: Self.tag(key)] }
        set {
            let tag = Self.tag(key)
            if let index = storage.firstIndex(where: { $0.tag == tag && $0.key == key }) {
                if let newValue { storage[index].value = newValue } else { storage.remove(at: index) }
            } else if let newValue {
                storage.append(Field(tag: tag, key: key, value: newValue))
            }
        }
    }

    /// The value of `key` whose ``tag(_:)`` is `tag` (computed once, when templates compile).
    subscript(key: String, tag tag: UInt32) -> TemplateValue? {
        storage.withUnsafeBufferPointer { fields in
            var index = 0
            while index < fields.count {
                if fields[index].tag == tag && fields[index].key == key { return fields[index].value }
                index += 1
            }
            return nil
        }
    }

    /// Where the value of `key` is stored, looked for first at position `hint`, which is
    /// updated to where it was found. The pointer stays valid while this object's storage is
    /// alive and unchanged (the renderer reads a context it does not mutate).
    @inline(__always)
    func valuePointer(forKey key: String, tag: UInt32, hint: inout Int32) -> UnsafePointer<TemplateValue>? {
        storage.withUnsafeBufferPointer { fields in
            guard let base = fields.baseAddress else { return nil }
            let guess = Int(hint)
            if guess < fields.count, fields[guess].tag == tag, fields[guess].key == key {
                return Self.value(in: base + guess)
            }
            var index = 0
            while index < fields.count {
                if fields[index].tag == tag && fields[index].key == key {
                    hint = Int32(truncatingIfNeeded: index)
                    return Self.value(in: base + index)
                }
                index += 1
            }
            return nil
        }
    }

    /// The address of a field's value.
    @inline(__always)
    private static func value(in field: UnsafePointer<Field>) -> UnsafePointer<TemplateValue> {
        (UnsafeRawPointer(field) + MemoryLayout<Field>.offset(of: \Field.value)!).assumingMemoryBound(
            to: TemplateValue.self)
    }

    /// Appends a field whose key is not in the object yet: cheaper than the subscript, which
    /// looks for the key first (encoders and builders of fixed objects write each key once).
    public mutating func append(_ key: String, _ value: TemplateValue) {
        assert(self[key] == nil, "key \(key) appended twice")
        storage.append(Field(tag: Self.tag(key), key: key, value: value))
    }

    /// A constant-time fingerprint of a key (its length and first byte): equal keys have equal
    /// tags, so most mismatches are ruled out without comparing strings.
    @inline(__always)
    static func tag(_ key: String) -> UInt32 {
        var bytes = key.utf8.makeIterator()
        return UInt32(truncatingIfNeeded: key.utf8.count) << 8 | UInt32(bytes.next() ?? 0)
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: TemplateValue)]> { fields.makeIterator() }

    public static func == (lhs: TemplateObject, rhs: TemplateObject) -> Bool {
        lhs.count == rhs.count && lhs.storage.allSatisfy { rhs[$0.key, tag: $0.tag] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for key in storage.map(\.key).sorted() { hasher.combine(key) }
    }
}
