/// HTML escaping on bytes: `&`, `<`, `>`, `"` and `'` become entities; runs without them are
/// copied in one step.
enum HTMLEscaping {
    /// Bit `b` is set for each byte `b` (< 64) that needs escaping: `"` 34, `&` 38, `'` 39, `<` 60, `>` 62.
    private static let mask: UInt64 = 1 << 34 | 1 << 38 | 1 << 39 | 1 << 60 | 1 << 62

    @inline(__always)
    static func needsEscaping(_ byte: UInt8) -> Bool {
        byte < 64 && (mask >> UInt64(byte)) & 1 == 1
    }

    static func append(_ text: inout String, to output: inout [UInt8]) {
        text.withUTF8 { bytes in append(bytes, to: &output) }
    }

    static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if needsEscaping(byte) {
                if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                switch byte {
                case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
                default: output.append(contentsOf: "&#39;".utf8)
                }
                runStart = index + 1
            }
            index += 1
        }
        if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }
}
