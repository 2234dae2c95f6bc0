import FlowCore
import FlowStore

extension SessionCheck {
    /// What bringing a quarantined session back writes: the record and the history entries to
    /// commit over the session as it went on since (with `expectedVersion` its version).
    public struct Restoration: Sendable, Hashable {
        /// The restored session, one version after the one it replaces.
        public var record: SessionRecord
        /// The quarantined copy's history, then one `restart` entry that records the restore and
        /// keeps the state it led to.
        public var entries: [HistoryRecord]
    }

    /// `copy`, a session set aside because an earlier build could not read it, brought back with
    /// this build over `current` — the session as it went on from the app's start since — when
    /// this build reads it (its migrations included); `nil` otherwise. Nothing is lost: the
    /// history keeps the copy's entries, the restart and what the visitor did since, then a
    /// `restart` entry saying it was restored, which keeps the restored state (so the history
    /// still replays to it). The session keeps `current`'s CSRF token and expiry.
    public func restored(_ copy: QuarantinedSession, over current: SessionRecord, now: Int64) -> Restoration? {
        guard copy.record.id == current.id, copy.record.version < current.version,
            let decoded = try? decoder.decode(copy.record), let top = decoded.tree.top,
            let currentExtra = try? decoder.decode(current).extra
        else { return nil }
        let (version, seq) = (current.version + 1, current.lastSeq + 1)
        var extra = decoded.extra
        extra.restartedAt = nil
        extra.appVersion = appVersion
        extra.levels =
            extra.levels.filter { $0[0] <= copy.record.version } + currentExtra.levels
            + (currentExtra.levels.last?[1] == decoder.migrator.level ? [] : [[version, decoder.migrator.level]])
        extra.snapshots = Array(Set(extra.snapshots + currentExtra.snapshots + [seq])).sorted()
        let bytes = decoded.migrated.map { ($0.tree, $0.appData) } ?? (copy.record.tree, copy.record.appData)
        let entry = StoredEntry<Step>(
            seq: seq, at: now, source: .restart, url: nil, version: version,
            navigation: Navigation(
                trigger: .start, outcome: .navigated, adaptedStep: nil, actions: [], steps: [], top: top.id,
                topURL: top.url),
            snapshot: StateSnapshot(tree: bytes.0, appData: bytes.1),
            reason: "restored as stored at version \(copy.record.version), before it was set aside: \(copy.reason)")
        let extraBytes = extra.jsonBytes()
        guard let stored = try? entry.encoded() else {
            return nil
        }
        let record = SessionRecord(
            id: current.id, version: version, tree: bytes.0, appData: bytes.1, csrfToken: current.csrfToken,
            lastSeq: seq, extra: extraBytes, createdAt: copy.record.createdAt, lastUsedAt: now,
            expiresAt: current.expiresAt)
        return Restoration(record: record, entries: copy.history + [stored])
    }

    /// Whether `record` is a session that started again because a build could not read it (so
    /// the store's quarantine may hold what it was).
    public func wasRestarted(_ record: SessionRecord) -> Bool {
        (try? CompactJSONDecoder().decode(SessionExtra.self, from: record.extra))?.restartedAt != nil
    }
}
