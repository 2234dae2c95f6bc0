extension JSON: Encodable {
    /// The value as it is: a document built as a ``JSON`` value is written by
    /// ``CompactJSONEncoder`` without a second pass, and by other encoders as its parts.
    public func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? JSONValueEncoder {
            encoder.set(self)
            return
        }
        switch self {
        case .object(let fields):
            var container = encoder.container(keyedBy: Key.self)
            for field in fields { try container.encode(field.value, forKey: Key(stringValue: field.key)) }
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
