/// A JSON document as a value: what ``CompactJSONEncoder`` produces before writing bytes and
/// ``CompactJSONDecoder`` reads after parsing. Objects keep their fields in order, as small
/// arrays (trees, steps and API bodies have few keys per object).
public enum JSON: Sendable, Equatable {
    /// `null`
    case null
    /// `true` or `false`
    case bool(Bool)
    /// A number without fraction or exponent that fits an `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object, its fields in order.
    case object([(key: String, value: JSON)])

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value of `key` in an object.
    public subscript(key: String) -> JSON? {
        guard case .object(let fields) = self else { return nil }
        for field in fields where field.key == key { return field.value }
        return nil
    }
}

extension JSON {
    /// Parses JSON text strictly (RFC 8259).
    ///
    /// - Throws: ``JSONParser/Failure`` with the byte offset and what was wrong.
    public init(parsing bytes: [UInt8]) throws(JSONParser.Failure) {
        self = try JSONParser.parse(bytes)
    }

    /// The JSON text of this value, compact.
    ///
    /// The array's capacity is its size: stores keep these bytes, some for a long time.
    public var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        JSONWriter.write(self, into: &output)
        return [UInt8](unsafeUninitializedCapacity: output.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: output)
        }
    }
}

/// Writes JSON text straight into bytes: a ``JSON`` value, or a document's parts one by one
/// (what the API's State is written with, no value built first).
public enum JSONWriter {
    /// `value`'s compact JSON text.
    public static func write(_ value: JSON, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): writeInteger(number, into: &output)
        case .double(let number):
            if number.isFinite {
                output.append(contentsOf: "\(number)".utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            output.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(field.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(field.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// The decimal digits of `number`, written straight into `output`.
    public static func writeInteger(_ number: Int, into output: inout [UInt8]) {
        if number < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Whether `byte` must be escaped inside a JSON string.
    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// `text` as a JSON string, quoted and escaped.
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (names, ids, URLs) need no escape: one copy of their bytes.
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: needsEscape) else { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// Parses JSON text strictly (RFC 8259): one value, nothing after it but whitespace.
public struct JSONParser {
    /// Text that is not valid JSON.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// Where the problem is.
        public var offset: Int
        /// What is wrong.
        public var reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSON {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw Failure(offset: parser.index, reason: "text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func parseValue() throws(Failure) -> JSON {
        skipWhitespace()
        guard index < bytes.count else { throw Failure(offset: index, reason: "unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try parseNumber()
        }
    }

    private mutating func literal(_ word: String, _ value: JSON) throws(Failure) -> JSON {
        let text = Array(word.utf8)
        guard index + text.count <= bytes.count, Array(bytes[index..<index + text.count]) == text else {
            throw Failure(offset: index, reason: "unexpected character")
        }
        index += text.count
        return value
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= 512 else { throw Failure(offset: index, reason: "nested deeper than 512 levels") }
    }

    private mutating func parseObject() throws(Failure) -> JSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var fields: [(key: String, value: JSON)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw Failure(offset: index, reason: "expected a key")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw Failure(offset: index, reason: "expected :")
            }
            index += 1
            fields.append((key, try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw Failure(offset: index, reason: "unclosed object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw Failure(offset: index, reason: "expected , or }") }
            index += 1
            return .object(fields)
        }
    }

    private mutating func parseArray() throws(Failure) -> JSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw Failure(offset: index, reason: "unclosed array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw Failure(offset: index, reason: "expected , or ]") }
            index += 1
            return .array(items)
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"),
            bytes[index] >= 0x20
        { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            guard let text = String(validating: bytes[start..<index], as: UTF8.self) else {
                throw Failure(offset: start, reason: "invalid UTF-8")
            }
            index += 1
            return text
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "invalid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw Failure(offset: index, reason: "unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw Failure(offset: index, reason: "unpaired surrogate")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        throw Failure(offset: index, reason: "invalid \\u escape")
                    }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    throw Failure(offset: index - 1, reason: "invalid escape")
                }
            case 0..<0x20:
                throw Failure(offset: index, reason: "control character in a string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
        throw Failure(offset: start, reason: "unclosed string")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Failure(offset: index, reason: "short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw Failure(offset: index, reason: "invalid \\u escape")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private mutating func parseNumber() throws(Failure) -> JSON {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        var isInteger = true
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): index += 1
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                isInteger = false
                index += 1
            default:
                break
            }
            if index < bytes.count, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]),
                ![UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")]
                    .contains(bytes[index])
            {
                break
            }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let number = Int(text) { return .int(number) }
        guard !text.isEmpty, let number = Double(text) else { throw Failure(offset: start, reason: "invalid number") }
        // Out of Double's range (`1e999`): refused rather than kept as infinity, which JSON cannot
        // print (found by fuzzing: it came back as `null`).
        guard number.isFinite else { throw Failure(offset: start, reason: "number out of range") }
        return .double(number)
    }
}
