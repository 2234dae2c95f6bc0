/// Strict percent-decoding (RFC 3986): every `%` must be followed by two hex digits and the
/// result must be valid UTF-8 without NUL bytes.
public enum PercentDecoding {
    /// Decodes `text`; with `plusAsSpace` a `+` becomes a space (form and query encoding).
    ///
    /// - Throws: ``HTTPParseError`` with code `invalidPercentEncoding` or `invalidUTF8`,
    ///   `location` naming the part of the request.
    public static func decode<Bytes: Collection<UInt8>>(
        _ text: Bytes, plusAsSpace: Bool, location: @autoclosure () -> String
    ) throws(HTTPParseError) -> String {
        // Most paths and names are plain ASCII with nothing to decode: they need no validation.
        if !text.contains(where: {
            $0 == UInt8(ascii: "%") || $0 == 0 || $0 >= 0x80 || (plusAsSpace && $0 == UInt8(ascii: "+"))
        }) {
            return String(decoding: text, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var index = text.startIndex
        var offset = 0
        while index != text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                let high = text.index(after: index)
                guard high != text.endIndex, let h = hexValue(text[high]) else {
                    throw HTTPParseError(.invalidPercentEncoding, in: location(), at: offset)
                }
                let low = text.index(after: high)
                guard low != text.endIndex, let l = hexValue(text[low]) else {
                    throw HTTPParseError(.invalidPercentEncoding, in: location(), at: offset)
                }
                bytes.append(h << 4 | l)
                index = text.index(after: low)
                offset += 3
                continue
            }
            if plusAsSpace && byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
            index = text.index(after: index)
            offset += 1
        }
        guard !bytes.contains(0), let string = String(validating: bytes, as: UTF8.self) else {
            throw HTTPParseError(.invalidUTF8, in: location())
        }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
