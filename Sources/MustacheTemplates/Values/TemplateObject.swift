/// The named values of an object in a template context, in insertion order.
///
/// View models have a handful of short keys, so a linear search over a small array beats
/// hashing: no hash to compute, and small strings compare in two machine words.
public struct TemplateObject: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// The fields in order; a later field with an existing key replaces it through ``subscript(_:)``.
    public private(set) var fields: [(key: String, value: TemplateValue)]

    /// An empty object with room for `capacity` fields.
    public init(capacity: Int = 0) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// An object from literal pairs.
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self.init(capacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// An object from a dictionary (keys sorted, for a stable order).
    public init(_ dictionary: [String: TemplateValue]) {
        self.init(capacity: dictionary.count)
        for key in dictionary.keys.sorted() { fields.append((key, dictionary[key]!)) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// The value of `key`; setting replaces it, or appends a new field.
    public subscript(key: String) -> TemplateValue? {
        get {
            var index = 0
            while index < fields.count {
                if fields[index].key == key { return fields[index].value }
                index += 1
            }
            return nil
        }
        set {
            if let index = fields.firstIndex(where: { $0.key == key }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((key, newValue))
            }
        }
    }

    /// Appends a field without checking for an existing key (encoders write each key once).
    mutating func append(_ key: String, _ value: TemplateValue) {
        fields.append((key, value))
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: TemplateValue)]> { fields.makeIterator() }

    public static func == (lhs: TemplateObject, rhs: TemplateObject) -> Bool {
        lhs.count == rhs.count && lhs.fields.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for key in fields.map(\.key).sorted() { hasher.combine(key) }
    }
}
