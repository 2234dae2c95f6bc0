/// Lower-case hexadecimal text.
enum Hex {
    private static let digits: StaticString = "0123456789abcdef"

    /// The 16 hex digits of `word`, most significant first.
    static func string(of word: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { text in
            digits.withUTF8Buffer { digits in
                for index in 0..<16 { text[index] = digits[Int(truncatingIfNeeded: word >> UInt64(60 - index * 4)) & 0xf] }
            }
            return 16
        }
    }

    /// `count` random bytes from the system's secure generator, as `2 × count` hex digits.
    static func random(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String(unsafeUninitializedCapacity: count * 2) { text in
            digits.withUTF8Buffer { digits in
                var word: UInt64 = 0
                for index in 0..<count {
                    if index % 8 == 0 { word = generator.next() }
                    let byte = Int(truncatingIfNeeded: word >> (UInt64(index % 8) * 8)) & 0xff
                    text[index * 2] = digits[byte >> 4]
                    text[index * 2 + 1] = digits[byte & 0x0f]
                }
            }
            return count * 2
        }
    }
}
