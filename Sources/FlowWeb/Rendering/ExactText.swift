/// A string written in one go into storage of its exact size: for the links and hidden fields
/// every page writes several of, where appending piece by piece checks capacity each time and
/// a string built from an integer is one more value to make.
///
/// `write` runs twice: once counting the bytes, then writing them.
///
/// ```swift
/// let link = ExactText.make { $0.append(base); $0.append("_from=" as StaticString); $0.append(node) }
/// ```
enum ExactText {
    /// Where `write` puts its pieces: counted on the first run, written on the second.
    struct Writer: ~Copyable {
        fileprivate let target: UnsafeMutablePointer<UInt8>?
        fileprivate var count = 0

        /// Appends ASCII or UTF-8 text known at compile time.
        @inline(__always)
        mutating func append(_ text: StaticString) {
            text.withUTF8Buffer { append(bytes: $0) }
        }

        /// Appends a string's UTF-8.
        @inline(__always)
        mutating func append(_ text: String) {
            // In place for a native string (no copy, no reference count written); a bridged one
            // is made contiguous first.
            if text.utf8.withContiguousStorageIfAvailable({ append(bytes: $0) }) == nil {
                var copy = text
                copy.withUTF8 { append(bytes: $0) }
            }
        }

        /// Appends an integer in decimal.
        mutating func append(_ number: Int) {
            if number < 0 { append("-" as StaticString) }
            var digits = 1
            var rest = number.magnitude / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            if let target {
                var value = number.magnitude
                for index in stride(from: count + digits - 1, through: count, by: -1) {
                    target[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            count += digits
        }

        @inline(__always)
        private mutating func append(bytes: UnsafeBufferPointer<UInt8>) {
            if let target, let source = bytes.baseAddress {
                (target + count).initialize(from: source, count: bytes.count)
            }
            count += bytes.count
        }
    }

    /// The string `write` writes.
    static func make(_ write: (inout Writer) -> Void) -> String {
        var counter = Writer(target: nil)
        write(&counter)
        let size = counter.count
        return String(unsafeUninitializedCapacity: size) { buffer in
            var writer = Writer(target: buffer.baseAddress)
            write(&writer)
            return writer.count
        }
    }
}
