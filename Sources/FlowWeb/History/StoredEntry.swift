import FlowCore
import FlowStore
import Foundation

/// What the store keeps per history entry: the navigation record (with `adapt`'s decisions, so
/// a history replays to the same tree) and what the public ``HistoryEntry`` adds to it. The
/// public entry is derived on reading, so nothing is stored twice.
///
/// Stored as `[at, source, version, url?, navigation]` (``StoredNavigation``), `at` in
/// milliseconds since 1970; the sequence number is the ``HistoryRecord``'s. An entry that carries
/// a snapshot of the state it led to (see ``HistoryRetention``) has two more fields: the tree's
/// JSON and the app data's (or `null`), `[…, navigation, tree, appData]`; a restart entry, and
/// one refused by a session limit, its reason after them, `[…, navigation, tree, appData,
/// reason]`, the tree and app data `null` when it keeps no snapshot. The start entry
/// stores `null` as its time, which is the session's creation time: so every session that starts
/// the same way stores the same bytes, and ``SessionService`` shares one copy of them.
///
/// Entries written by earlier versions are still read: `{"seq", "at", "source", "url"?, "version",
/// "navigation"}` and `{"entry": HistoryEntry, "navigation"}`, with ISO 8601 times.
struct StoredEntry<Step: FlowStep> {
    var seq: Int
    /// Milliseconds since 1970; `nil` for the session's creation time.
    var at: Int64?
    var source: HistoryEntry.Source
    var url: String?
    var version: Int
    var navigation: Navigation<Step>
    /// The state the entry led to, on the entries that keep one.
    var snapshot: StateSnapshot?
    /// Why the session started again, on a restart entry (which always keeps a snapshot), or
    /// which limit refused the navigation, on a `rejected` one.
    var reason: String?

    init(
        seq: Int, at: Int64?, source: HistoryEntry.Source, url: String?, version: Int, navigation: Navigation<Step>,
        snapshot: StateSnapshot? = nil, reason: String? = nil
    ) {
        self.snapshot = snapshot
        self.reason = reason
        self.seq = seq
        self.at = at
        self.source = source
        self.url = url
        self.version = version
        self.navigation = navigation
    }

    /// Reads a stored entry, in the current form or an earlier one.
    init(_ record: HistoryRecord) throws {
        if record.entry.first == UInt8(ascii: "[") {
            let stored = try CompactJSONDecoder().decode(Positional.self, from: record.entry)
            self.init(
                seq: record.seq, at: stored.at, source: stored.source, url: stored.url, version: stored.version,
                navigation: stored.navigation.navigation, snapshot: stored.snapshot, reason: stored.reason)
        } else {
            let legacy = try CompactJSONDecoder().decode(Legacy.self, from: record.entry)
            self.init(
                seq: legacy.seq, at: legacy.at, source: legacy.source, url: legacy.url, version: legacy.version,
                navigation: legacy.navigation)
        }
    }

    /// The stored form.
    func encoded() throws -> HistoryRecord {
        var writer = StoredEntryWriter<Step>()
        try writer.write(self)
        return HistoryRecord(seq: seq, entry: writer.bytes)
    }

    /// The entry as the JSON API shows it, in a session created at `createdAt` (milliseconds).
    func entry(sessionCreatedAt createdAt: Int64) -> HistoryEntry {
        var step: WireStep?
        var from: Int?
        if case .step(let value, let source) = navigation.trigger {
            step = try? WireStep(value)
            from = source?.rawValue
        }
        return HistoryEntry(
            seq: seq, at: Self.timestamp(at ?? createdAt), source: source, step: step,
            adaptedStep: navigation.adaptedStep.flatMap { try? WireStep($0) }, from: from, url: url,
            outcome: navigation.outcome,
            actions: navigation.actions, top: .init(node: navigation.top.rawValue, url: navigation.topURL),
            version: version, reason: reason)
    }

    /// `milliseconds` since 1970 as the API shows times (ISO 8601, UTC, seconds).
    /// Written by hand, as Foundation's `.iso8601` style writes it: every API answer has one.
    static func timestamp(_ milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - days * 86_400
        // Days since 1970 to a civil date (Howard Hinnant's algorithm, proleptic Gregorian).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var text = [UInt8]()
        text.reserveCapacity(20)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        text.append(UInt8(ascii: "-"))
        digits(month, 2)
        text.append(UInt8(ascii: "-"))
        digits(day, 2)
        text.append(UInt8(ascii: "T"))
        digits(second / 3_600, 2)
        text.append(UInt8(ascii: ":"))
        digits(second / 60 % 60, 2)
        text.append(UInt8(ascii: ":"))
        digits(second % 60, 2)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// `[at, source, version, url?, navigation]`.
    private struct Positional: Decodable {
        var at: Int64?
        var source: HistoryEntry.Source
        var url: String?
        var version: Int
        var navigation: StoredNavigation<Step>
        var snapshot: StateSnapshot?
        var reason: String?

        init(from decoder: any Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            at = try fields.decodeIfPresent(Int64.self)
            source = try fields.decode(HistoryEntry.Source.self)
            version = try fields.decode(Int.self)
            url = try fields.decodeIfPresent(String.self)
            navigation = try fields.decode(StoredNavigation<Step>.self)
            if !fields.isAtEnd {
                let tree = try fields.decode(JSON.self)
                let appData = try fields.decode(JSON.self)
                if tree != .null {
                    snapshot = StateSnapshot(tree: tree.bytes, appData: appData == .null ? [] : appData.bytes)
                }
                if !fields.isAtEnd { reason = try fields.decode(String.self) }
            }
        }
    }

    /// The object forms of earlier versions.
    private struct Legacy: Decodable {
        var seq: Int
        var at: Int64
        var source: HistoryEntry.Source
        var url: String?
        var version: Int
        var navigation: Navigation<Step>

        private enum CodingKeys: String, CodingKey { case seq, at, source, url, version, navigation, entry }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            navigation = try container.decode(Navigation<Step>.self, forKey: .navigation)
            let time: String
            if let entry = try container.decodeIfPresent(HistoryEntry.self, forKey: .entry) {
                (seq, time, source, url, version) = (entry.seq, entry.at, entry.source, entry.url, entry.version)
            } else {
                seq = try container.decode(Int.self, forKey: .seq)
                time = try container.decode(String.self, forKey: .at)
                source = try container.decode(HistoryEntry.Source.self, forKey: .source)
                url = try container.decodeIfPresent(String.self, forKey: .url)
                version = try container.decode(Int.self, forKey: .version)
            }
            guard let date = try? Date(time, strategy: .iso8601) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .at, in: container, debugDescription: "\"\(time)\" is not an ISO 8601 time")
            }
            at = Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
    }
}

/// The state a history entry led to, encoded as the session record keeps it.
struct StateSnapshot: Sendable, Hashable {
    /// The tree's JSON.
    var tree: [UInt8]
    /// The app data's JSON (empty: the app's initial app data).
    var appData: [UInt8]
}
