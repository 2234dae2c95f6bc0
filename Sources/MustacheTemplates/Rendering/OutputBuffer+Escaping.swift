extension OutputBuffer {
    /// Bit `b` is set for each byte `b` (< 64) that needs escaping: `"` 34, `&` 38, `'` 39, `<` 60, `>` 62.
    private static let escapeMask: UInt64 = 1 << 34 | 1 << 38 | 1 << 39 | 1 << 60 | 1 << 62

    /// Appends `bytes` HTML-escaped: `&`, `<`, `>`, `"` and `'` become entities. Writes straight
    /// into the buffer after reserving the worst case (six bytes per input byte).
    mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        withSpace(for: bytes.count * 6) { target in
            var written = 0
            for byte in bytes {
                guard byte < 64, (Self.escapeMask >> UInt64(byte)) & 1 == 1 else {
                    target[written] = byte
                    written += 1
                    continue
                }
                let entity: StaticString
                switch byte {
                case UInt8(ascii: "&"): entity = "&amp;"
                case UInt8(ascii: "<"): entity = "&lt;"
                case UInt8(ascii: ">"): entity = "&gt;"
                case UInt8(ascii: "\""): entity = "&quot;"
                default: entity = "&#39;"
                }
                for index in 0..<entity.utf8CodeUnitCount {
                    target[written + index] = entity.utf8Start[index]
                }
                written += entity.utf8CodeUnitCount
            }
            return written
        }
    }
}
