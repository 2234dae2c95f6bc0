import FlowCore
import FlowStore

/// A session as it was right after one of its history entries.
struct PastState<Step: FlowStep>: Sendable {
    /// The entry.
    var entry: StoredEntry<Step>
    /// The tree (with the app data) right after it.
    var tree: NavigationTree
}

extension SessionService {
    /// `session` right after its history entry `seq`, rebuilt by replaying the history from the
    /// nearest snapshot at or before `seq` (or from the start), so that no request replays more
    /// than about two snapshot intervals of entries, however long the history.
    ///
    /// - Throws: ``WebError`` `404` for a `seq` the session never had or no longer keeps, `409`
    ///   when a version of the app stored history this one cannot read or replay.
    func past(_ session: LoadedSession, at seq: Int) async throws(WebError) -> PastState<Step> {
        guard seq >= 1, seq <= session.record.lastSeq else {
            throw .notFound(
                "There is no entry \(seq) in this session's history (the last is \(session.record.lastSeq)).")
        }
        guard session.isStored else {
            let initial = try await initial.value()
            return PastState(entry: initial.start, tree: initial.tree)
        }
        let window = max(0, seq - 2 * retention.snapshotInterval)
        var entries = try await storedEntries(of: session, after: window, limit: seq - window).filter { $0.seq <= seq }
        if window > 0, entries.first?.seq == window + 1, replayBase(in: entries) == nil {
            // No snapshot in the window (a history written before snapshots): from the start.
            entries = try await storedEntries(of: session, after: 0, limit: seq).filter { $0.seq <= seq }
        }
        guard let target = entries.last, target.seq == seq, let base = replayBase(in: entries) else {
            let oldest = try await storedEntries(of: session, after: 0, limit: 1)
            throw .notFound(
                "Entry \(seq) is no longer kept: this session keeps its last \(retention.limit) entries, the oldest now being \(oldest.first?.seq ?? session.record.lastSeq)."
            )
        }
        var tree: NavigationTree
        do {
            if let snapshot = entries[base].snapshot {
                tree = try NavigationTree(json: snapshot.tree, appData: snapshot.appData, registry: app.flows.registry)
            } else {
                tree = try await coordinator.replay([entries[base].navigation])
            }
            tree = try await coordinator.replay(entries[(base + 1)...].map { $0.navigation }, from: tree)
        } catch {
            throw .otherVersion(
                "Entry \(seq) of this session's history cannot be replayed by this version of the app: \(error)")
        }
        return PastState(entry: target, tree: tree)
    }

    /// The index of the last entry a replay can start from: one with a snapshot, or the start.
    private func replayBase(in entries: [StoredEntry<Step>]) -> Int? {
        entries.lastIndex { $0.snapshot != nil || $0.navigation.trigger == .start }
    }
}
