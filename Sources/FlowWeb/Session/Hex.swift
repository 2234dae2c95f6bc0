/// Lower-case hexadecimal text.
enum Hex {
    private static let digits: StaticString = "0123456789abcdef"

    /// The 16 hex digits of `word`, most significant first.
    static func string(of word: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { text in
            digits.withUTF8Buffer { digits in
                for index in 0..<16 {
                    text[index] = digits[Int(truncatingIfNeeded: word >> UInt64(60 - index * 4)) & 0xf]
                }
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

    /// The hex digits of `bytes`, two per byte.
    static func string(of bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            digits.withUTF8Buffer { digits in
                for (index, byte) in bytes.enumerated() {
                    text[index * 2] = digits[Int(byte >> 4)]
                    text[index * 2 + 1] = digits[Int(byte & 0x0f)]
                }
            }
            return bytes.count * 2
        }
    }

    /// The bytes that the lower-case hex digits `text` spell; `nil` for an odd count or any
    /// other character.
    static func bytes(of text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.count / 2)
        var index = 0
        while index < text.count {
            guard let high = value(of: text[index]), let low = value(of: text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(of digit: UInt8) -> UInt8? {
        if digit &- UInt8(ascii: "0") < 10 { return digit &- UInt8(ascii: "0") }
        if digit &- UInt8(ascii: "a") < 6 { return digit &- UInt8(ascii: "a") + 10 }
        return nil
    }
}
