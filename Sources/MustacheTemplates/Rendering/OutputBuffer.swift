/// The growing byte buffer a render writes into: raw memory, appended with `memcpy`, handed
/// over as one array at the end, and then kept for the thread's next render. `Array.append(contentsOf:)` costs more than the copy itself
/// for the short runs a template writes.
struct OutputBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    /// A buffer of at least `capacity` bytes, in the thread's idle output memory when it has
    /// enough (see ``IdleOutputMemory``).
    init(capacity: Int) {
        (base, self.capacity) = IdleOutputMemory.take(atLeast: max(capacity, 64))
    }

    deinit { IdleOutputMemory.putBack(base) }

    var last: UInt8? { count == 0 ? nil : base[count - 1] }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        if bytes.count <= 16 {  // short runs: a loop beats a call to memcpy
            for index in 0..<bytes.count { base[count + index] = source[index] }
        } else {
            (base + count).update(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    /// Lets `write` fill up to `maximum` bytes at the end; it returns how many it wrote.
    @inline(__always)
    mutating func withSpace(for maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        count += write(base + count)
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends a short ASCII literal such as `&amp;`.
    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < count + extra { newCapacity *= 2 }
        let grown = IdleOutputMemory.allocate(newCapacity)
        grown.update(from: base, count: count)
        IdleOutputMemory.free(base)
        base = grown
        capacity = newCapacity
    }

    /// The bytes written, as an array.
    func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes written, as text (invalid UTF-8 repaired, as `String(decoding:as:)` does).
    func string() -> String {
        String(unsafeUninitializedCapacity: count) { text in
            guard let target = text.baseAddress else { return 0 }
            target.initialize(from: base, count: count)
            return count
        }
    }
}
