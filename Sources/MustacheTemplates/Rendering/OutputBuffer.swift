/// The growing byte buffer a render writes into: raw memory, appended with `memcpy`, handed
/// over as one array at the end, and then kept for the thread's next render. `Array.append(contentsOf:)` costs more than the copy itself
/// for the short runs a template writes.
///
/// Writes always succeed; a render asks ``overflowed`` between its loops and expansions and ends
/// once its output passed `limit`, so the output passes it by at most what one run of a template
/// writes outside its lists and partials.
struct OutputBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// The most bytes a render should write.
    let limit: Int

    /// A buffer of at least `capacity` bytes, in the thread's idle output memory when it has
    /// enough (see ``IdleOutputMemory``), for a render of at most `limit` bytes.
    init(capacity: Int, limit: Int) {
        self.limit = limit
        (base, self.capacity) = IdleOutputMemory.take(atLeast: max(min(capacity, limit), 64))
    }

    /// Whether more than ``limit`` bytes were written.
    var overflowed: Bool { count > limit }

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
