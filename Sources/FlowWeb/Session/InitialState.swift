import FlowCore
import FlowStore
import Synchronization

/// The app's initial state, computed once and shared by every session: a session starts at it
/// and is stored only once its state first differs from it, so a visitor who only looks costs
/// nothing in the store.
///
/// The app's start must therefore not depend on the session: it runs once per process (its
/// observers see one start), and every instance must compute the same tree.
final class InitialState<Step: FlowStep>: Sendable {
    /// The initial state, encoded as a stored session holds it.
    struct Value: Sendable {
        let tree: NavigationTree
        let treeBytes: [UInt8]
        let appDataBytes: [UInt8]
        /// The start entry every session's history begins with (its time is the session's
        /// creation), and its stored bytes.
        let start: StoredEntry<Step>
        let startRecord: HistoryRecord
        /// The bookkeeping a new session starts with (the app's migration level and version).
        let bookkeeping: SessionExtra
    }

    private let coordinator: Coordinator<Step>
    private let bookkeeping: SessionExtra
    private let computed = Mutex<Value?>(nil)

    /// The initial state of `coordinator`'s app, its sessions starting with `bookkeeping`.
    init(coordinator: Coordinator<Step>, bookkeeping: SessionExtra = SessionExtra()) {
        self.coordinator = coordinator
        self.bookkeeping = bookkeeping
    }

    /// The initial state, once ``value()`` has computed it.
    var ready: Value? { computed.withLock { $0 } }

    /// The initial state, computed by starting the app the first time (two first callers may
    /// both start it; the first to finish is kept).
    func value() async throws(WebError) -> Value {
        if let value = ready { return value }
        let started: (tree: NavigationTree, navigation: Navigation<Step>)
        do { started = try await coordinator.start() } catch { throw .internalError("the app cannot start: \(error)") }
        let start = StoredEntry(seq: 1, at: nil, source: .start, url: nil, version: 1, navigation: started.navigation)
        let value: Value
        do {
            value = Value(
                tree: started.tree, treeBytes: try started.tree.jsonBytes(),
                appDataBytes: try started.tree.appDataJSON(), start: start,
                startRecord: try start.encoded(), bookkeeping: bookkeeping)
        } catch {
            throw .internalError("cannot encode the app's initial state: \(error)")
        }
        return computed.withLock { kept in
            if kept == nil { kept = value }
            return kept!
        }
    }
}

extension InitialState.Value {
    /// Session `id`, minted at `mintedAt`, still at the initial state: version 1, its history
    /// the start entry alone.
    func session(id: String, mintedAt: Int64, csrfToken: String, lifetime: SessionLifetime) -> LoadedSession {
        let record = SessionRecord(
            id: id, version: 1, tree: treeBytes, appData: appDataBytes, csrfToken: csrfToken, lastSeq: 1,
            createdAt: mintedAt, lastUsedAt: mintedAt, expiresAt: mintedAt + lifetime.ttl)
        return LoadedSession(record: record, tree: tree, extra: bookkeeping, isStored: false)
    }
}
