/// How much of each session's history is kept, and how often the history records the state it
/// led to (a snapshot), so that a past state is rebuilt by replaying at most a few entries, and
/// the oldest entries can be folded away without losing what came after.
///
/// Every ``snapshotInterval`` entries, the last entry of the commit that reaches the next
/// multiple carries the tree and app data it led to. Past ``limit`` entries, a commit that writes
/// a snapshot also drops the entries before the oldest snapshot that keeps at most `limit`
/// entries: the history then starts at that entry, and time travel, the API and replays start
/// from its snapshot.
public struct HistoryRetention: Sendable, Hashable {
    /// The most history entries a session keeps (`0`: all).
    public var limit: Int
    /// Entries between snapshots.
    public var snapshotInterval: Int

    /// Keeps `limit` entries (`0`: all), a snapshot every `snapshotInterval` entries (by default
    /// 100, or a quarter of the limit when that is less).
    public init(limit: Int = 1000, snapshotInterval: Int? = nil) {
        self.limit = max(0, limit)
        self.snapshotInterval = max(1, snapshotInterval ?? (limit > 0 ? min(100, max(1, limit / 4)) : 100))
    }

    /// Whether a commit whose entries run from `first` to `last` writes a snapshot on `last`.
    func snapshots(first: Int, last: Int) -> Bool {
        last >= first && (first - 1) / snapshotInterval != last / snapshotInterval
    }

    /// Of the snapshot entries `snapshots` (ascending, the newest being `lastSeq`'s commit), the
    /// one the history may start at: the oldest that keeps at most ``limit`` entries, when older
    /// ones (and the entries before them) can go. `nil` when nothing is to be dropped.
    func foldTarget(snapshots: [Int], lastSeq: Int) -> Int? {
        guard limit > 0 else { return nil }
        return snapshots.first { lastSeq - $0 + 1 <= limit }.flatMap { $0 == snapshots.first ? nil : $0 }
    }
}
