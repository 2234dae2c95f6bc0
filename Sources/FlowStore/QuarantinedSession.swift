/// A stored session set aside because the app could no longer read it (a page or flow renamed, a
/// state that gained a field): its record and history exactly as they were stored, why it was set
/// aside, and until when it is kept (see ``SessionStore/quarantine(_:)``). The session itself goes
/// on under its id from the app's initial state; this copy is what a later build, with the
/// migration that was missing, can bring back.
public struct QuarantinedSession: Sendable, Hashable {
    /// The session as stored when it was set aside.
    public var record: SessionRecord
    /// Its history entries as stored, in order.
    public var history: [HistoryRecord]
    /// Why the app could not read it, in words (`unknown page "film": register its type…`).
    public var reason: String
    /// What kind of reason, a short label for metrics and reports (`unknown-page`).
    public var cause: String
    /// The version of the app that wrote it, when the session recorded one.
    public var writtenBy: String?
    /// Milliseconds since 1970 when it was set aside.
    public var quarantinedAt: Int64
    /// Milliseconds since 1970 after which the store may drop it.
    public var expiresAt: Int64

    /// A session set aside.
    public init(
        record: SessionRecord, history: [HistoryRecord], reason: String, cause: String, writtenBy: String?,
        quarantinedAt: Int64, expiresAt: Int64
    ) {
        self.record = record
        self.history = history
        self.reason = reason
        self.cause = cause
        self.writtenBy = writtenBy
        self.quarantinedAt = quarantinedAt
        self.expiresAt = expiresAt
    }
}

extension QuarantinedSession {
    /// The history as one value for a store's column: each entry as its seq (8 bytes) and length
    /// (4 bytes), little-endian, then its bytes.
    public var encodedHistory: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(history.reduce(0) { $0 + 12 + $1.entry.count })
        for record in history {
            withUnsafeBytes(of: Int64(record.seq).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(record.entry.count).littleEndian) { bytes += $0 }
            bytes += record.entry
        }
        return bytes
    }

    /// The history ``encodedHistory`` wrote.
    ///
    /// - Throws: ``StoreError`` (unavailable) when the bytes were cut short.
    public static func history(decoding bytes: [UInt8]) throws(StoreError) -> [HistoryRecord] {
        var records: [HistoryRecord] = []
        var index = 0
        func integer(_ size: Int) throws(StoreError) -> UInt64 {
            guard index + size <= bytes.count else { throw .unavailable("a quarantined history is cut short") }
            var value: UInt64 = 0
            for offset in (0..<size).reversed() { value = value << 8 | UInt64(bytes[index + offset]) }
            index += size
            return value
        }
        while index < bytes.count {
            let seq = Int(Int64(bitPattern: try integer(8)))
            let count = Int(try integer(4))
            guard index + count <= bytes.count else { throw .unavailable("a quarantined history is cut short") }
            records.append(HistoryRecord(seq: seq, entry: Array(bytes[index..<index + count])))
            index += count
        }
        return records
    }
}
