/// A page's URL path: its literal text as written, each interpolated value percent-encoded as one
/// path segment, so a value never breaks the URL it is in.
///
/// ```swift
/// var path: PagePath { "/hello/\(name)" }   // "50%" → /hello/50%25, "x?y" → /hello/x%3Fy
/// ```
///
/// A value keeps the letters, digits and `-._~!$&'()*+,;=:@` it has; every other byte of its
/// UTF-8 form (`/`, `%`, `?`, `#`, a space, non-ASCII) becomes `%XX`. A request for the page is
/// matched after its path is brought to this same form, and a deep-link route's parameters are
/// decoded back to the value (`{name}` of `/hello/x%3Fy` is `x?y`). The literal parts are the
/// app's own and are used as they are.
public struct PagePath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The path as it goes in a URL: `/hello/50%25`.
    public let encoded: String

    /// A path already in its URL form (nothing is encoded).
    public init(encoded: String) { self.encoded = encoded }

    /// A path without values: `"/wishlist"`.
    public init(stringLiteral value: String) { encoded = value }

    /// A path with values: `"/movies/\(id)"`.
    public init(stringInterpolation: StringInterpolation) { encoded = stringInterpolation.encoded }

    /// The URL form, `/hello/50%25`.
    public var description: String { encoded }

    /// Builds a ``PagePath`` from literal text and encoded values.
    public struct StringInterpolation: StringInterpolationProtocol {
        var encoded = ""

        /// Room for the literal text and a few bytes per value.
        public init(literalCapacity: Int, interpolationCount: Int) {
            encoded.reserveCapacity(literalCapacity + 8 * interpolationCount)
        }

        /// Literal text, as written.
        public mutating func appendLiteral(_ literal: String) { encoded += literal }

        /// A value as one path segment, percent-encoded.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            PagePath.appendSegment(value.description, to: &encoded)
        }
    }

    /// `segment` as one path segment: the bytes a segment may hold as they are, the others `%XX`.
    public static func encodeSegment(_ segment: some StringProtocol) -> String {
        var encoded = ""
        appendSegment(segment, to: &encoded)
        return encoded
    }

    /// Whether `byte` stays as it is in a segment (RFC 3986 `pchar` without `%`).
    @inline(__always)
    public static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
            UInt8(ascii: ":"), UInt8(ascii: "@"):
            true
        default: false
        }
    }

    private static func appendSegment(_ segment: some StringProtocol, to encoded: inout String) {
        let utf8 = segment.utf8
        if utf8.allSatisfy(isKept) {
            encoded += segment
            return
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isKept(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        encoded += String(decoding: bytes, as: UTF8.self)
    }
}
