import FlowCore
import FlowStore

/// A session's next record and the history it appends, encoded and ready to commit.
struct SessionCommit<Step: FlowStep>: Sendable {
    /// The record to store: the version one more, the tree and the changed parts encoded, the
    /// expiry pushed back when due.
    var record: SessionRecord
    /// The history entries to append, encoded.
    var history: [HistoryRecord]
    /// The same entries, decoded, for the answer.
    var entries: [StoredEntry<Step>]
    /// The session's bookkeeping as committed (with the snapshot entries retention needs).
    var extra: SessionExtra
    /// The committed tree encoded (its bytes are the record's), for the next commit to copy from.
    var encoded: EncodedTree
    /// The size of the committed tree, measured while encoding it.
    var treeSize: TreeSize { encoded.size }
    /// When the history is to be folded: the entries before this one (a snapshot entry) can be
    /// dropped once the commit is stored.
    var dropHistoryBefore: Int?

    /// The commit of `session` with `pending` entries, at `now`. `appDataBefore` is the app data
    /// `session.record` holds the bytes of: unchanged, they are kept rather than encoded again
    /// (most steps change only the tree). The last entry carries a snapshot of the state when
    /// `retention` asks for one. The bookkeeping records `appVersion` as the version that wrote it.
    ///
    /// - Throws: ``WebError`` `500` when the tree, the app data or an entry cannot be encoded.
    init(
        _ session: LoadedSession, entries pending: [PendingEntry<Step>], appDataBefore: AnyAppData, now: Int64,
        lifetime: SessionLifetime, retention: HistoryRetention, appVersion: String
    ) throws(WebError) {
        var record = session.record
        record.version += 1
        var stored: [StoredEntry<Step>] = []
        for entry in pending {
            record.lastSeq += 1
            stored.append(
                StoredEntry(
                    seq: record.lastSeq, at: now, source: entry.source, url: entry.url, version: record.version,
                    navigation: entry.navigation, reason: entry.reason))
        }
        do {
            encoded = try session.tree.encoded(reusing: session.encoded)
            record.tree = encoded.bytes
            if session.tree.appData != appDataBefore { record.appData = try session.tree.appDataJSON() }
        } catch {
            throw .internalError("cannot encode session \(record.id.prefix(8))…: \(error)")
        }
        extra = session.extra
        if extra.appVersion != appVersion {
            extra.appVersion = appVersion
            extra.changed = true
        }
        if !stored.isEmpty, retention.snapshots(first: stored[0].seq, last: record.lastSeq) {
            stored[stored.count - 1].snapshot = StateSnapshot(tree: record.tree, appData: record.appData)
            if retention.limit > 0 {
                extra.snapshots.append(record.lastSeq)
                dropHistoryBefore = retention.foldTarget(snapshots: extra.snapshots, lastSeq: record.lastSeq)
                if let dropHistoryBefore { extra.snapshots.removeAll { $0 < dropHistoryBefore } }
                extra.changed = true
            }
        }
        var history: [HistoryRecord] = []
        for entry in stored {
            do { history.append(try entry.encoded()) } catch {
                throw .internalError("cannot encode history entry \(entry.seq): \(error)")
            }
        }
        if extra.changed { record.extra = extra.jsonBytes() }
        if lifetime.isDueForRenewal(lastUsedAt: record.lastUsedAt, now: now) {
            record.lastUsedAt = now
            record.expiresAt = now + lifetime.ttl
        }
        self.record = record
        self.history = history
        entries = stored
    }
}
