/// Session ids: 48 lower-case hex digits, 192 random bits.
enum SessionID {
    /// A new random id.
    static func random() -> String { Hex.random(bytes: 24) }

    /// Whether `id` has the form of a session id: anything else is not even looked up.
    static func isWellFormed(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { bytes in bytes.count == 48 && bytes.allSatisfy { $0 &- UInt8(ascii: "0") < 10 || $0 &- UInt8(ascii: "a") < 6 } }
    }
}
