extension OutputBuffer {
    /// Bit `b` is set for each byte `b` (< 64) that needs escaping: `"` 34, `&` 38, `'` 39, `<` 60, `>` 62.
    private static let escapeMask: UInt64 = 1 << 34 | 1 << 38 | 1 << 39 | 1 << 60 | 1 << 62

    /// Appends `bytes` HTML-escaped: `&`, `<`, `>`, `"` and `'` become entities. Writes straight
    /// into the buffer after reserving the worst case (six bytes per input byte).
    ///
    /// Text mostly needs no escaping, so it is scanned eight bytes at a time for any of the five
    /// (``mayNeedEscaping(_:)``), and the runs between them are copied whole.
    mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        withSpace(for: bytes.count * 6) { target in
            var written = 0
            var runStart = 0
            var index = 0
            while index < bytes.count {
                if index + 8 <= bytes.count,
                    !Self.mayNeedEscaping(UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = source[index]
                guard byte < 64, (Self.escapeMask >> UInt64(byte)) & 1 == 1 else {
                    index += 1
                    continue
                }
                (target + written).initialize(from: source + runStart, count: index - runStart)
                written += index - runStart
                let entity: StaticString
                switch byte {
                case UInt8(ascii: "&"): entity = "&amp;"
                case UInt8(ascii: "<"): entity = "&lt;"
                case UInt8(ascii: ">"): entity = "&gt;"
                case UInt8(ascii: "\""): entity = "&quot;"
                default: entity = "&#39;"
                }
                (target + written).initialize(from: entity.utf8Start, count: entity.utf8CodeUnitCount)
                written += entity.utf8CodeUnitCount
                index += 1
                runStart = index
            }
            (target + written).initialize(from: source + runStart, count: bytes.count - runStart)
            return written + bytes.count - runStart
        }
    }

    /// Whether any of the eight bytes of `word` is one that needs escaping; never `false` when
    /// one is. Each test is the exact "has a zero byte" check on the word XORed with the byte
    /// repeated.
    @inline(__always)
    private static func mayNeedEscaping(_ word: UInt64) -> Bool {
        @inline(__always)
        func hasByte(_ byte: UInt8) -> UInt64 {
            let value = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
            return (value &- 0x0101_0101_0101_0101) & ~value & 0x8080_8080_8080_8080
        }
        return hasByte(UInt8(ascii: "&")) | hasByte(UInt8(ascii: "<")) | hasByte(UInt8(ascii: ">"))
            | hasByte(UInt8(ascii: "\"")) | hasByte(UInt8(ascii: "'")) != 0
    }
}
