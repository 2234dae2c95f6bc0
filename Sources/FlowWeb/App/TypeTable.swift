/// A fixed table of values by type, looked up without hashing: built once, read on every page.
///
/// Open addressing over a power-of-two array, at most half full, indexed by the type's metadata
/// address mixed by one multiplication: a lookup is a multiply, a shift and one or two pointer
/// comparisons, where a `Dictionary` runs SipHash over the identifier first.
struct TypeTable<Value: Sendable>: Sendable {
    private let keys: [ObjectIdentifier?]
    private let values: [Value?]
    /// `64 - log2(capacity)`: the multiplied key's top bits are the first slot.
    private let shift: Int

    /// A table of `entries`; of two entries for the same type, the first is kept.
    init(_ entries: [(type: Any.Type, value: Value)]) {
        var bits = 1
        while 1 << bits < max(2 * entries.count, 2) { bits += 1 }
        shift = 64 - bits
        var keys = [ObjectIdentifier?](repeating: nil, count: 1 << bits)
        var values = [Value?](repeating: nil, count: 1 << bits)
        for entry in entries {
            let key = ObjectIdentifier(entry.type)
            var slot = Self.slot(of: key, shift: shift)
            while let occupant = keys[slot], occupant != key { slot = (slot + 1) & (keys.count - 1) }
            if keys[slot] == nil { (keys[slot], values[slot]) = (key, entry.value) }
        }
        (self.keys, self.values) = (keys, values)
    }

    /// The value for `type`, or `nil`.
    subscript(type: Any.Type) -> Value? {
        let key = ObjectIdentifier(type)
        var slot = Self.slot(of: key, shift: shift)
        while let occupant = keys[slot] {
            if occupant == key { return values[slot] }
            slot = (slot + 1) & (keys.count - 1)
        }
        return nil
    }

    /// The first slot of `key`: Fibonacci hashing of its address.
    @inline(__always)
    private static func slot(of key: ObjectIdentifier, shift: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }
}
