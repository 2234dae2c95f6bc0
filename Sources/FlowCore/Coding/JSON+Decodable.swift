extension JSON: Decodable {
    /// The value as it is, for a field whose shape the decoding type leaves open (for example
    /// an encoded tree kept inside a history entry). From ``CompactJSONDecoder`` the parsed value
    /// is taken without a copy; other decoders rebuild it.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? JSONValueDecoder {
            self = decoder.value
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(try object.allKeys.map { ($0.stringValue, try object.decode(JSON.self, forKey: $0)) })
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [JSON] = []
            while !array.isAtEnd { items.append(try array.decode(JSON.self)) }
            self = .array(items)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int.self) {
                self = .int(value)
            } else if let value = try? single.decode(Double.self) {
                self = .double(value)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
