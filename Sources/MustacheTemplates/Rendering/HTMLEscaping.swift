/// HTML escaping on bytes: `&`, `<`, `>`, `"` and `'` become entities; runs without them are
/// copied in one step.
enum HTMLEscaping {
    private static let needsEscaping: [Bool] = (0..<256).map { byte in
        [UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'")].contains(UInt8(byte))
    }

    static func append(_ text: inout String, to output: inout [UInt8]) {
        text.withUTF8 { bytes in append(bytes, to: &output) }
    }

    static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        for index in 0..<bytes.count where needsEscaping[Int(bytes[index])] {
            if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            switch bytes[index] {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
            default: output.append(contentsOf: "&#39;".utf8)
            }
            runStart = index + 1
        }
        if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }
}
