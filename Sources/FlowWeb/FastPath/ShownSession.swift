import FlowStore

/// What a thread keeps of a session version whose pages it shows: the session, with its own
/// copy of the record and, once shown often enough, a tree it decoded itself, and the page's
/// chrome. Kept per thread by ``SessionVersionCache``, so that rendering writes no memory
/// another core writes (see ``FastPagePath``).
final class ShownSession: @unchecked Sendable {
    // @unchecked: a thread's table holds it, and only that thread reads or changes it.
    /// The session as shown. (Only this thread reads or changes it, so accesses cannot overlap:
    /// no dynamic exclusivity checks.)
    @exclusivity(unchecked) private(set) var session: LoadedSession
    /// Whether `session.tree` is this thread's own rather than the shared cache's.
    private(set) var treeIsOwn = false
    /// How many times this thread showed it.
    private var showings = 0
    /// The chrome of the session's page.
    let chrome: PageChrome

    /// A session shown with `chrome`. Its commit encoding is not kept: a page shown never commits,
    /// and each thread's copy would otherwise keep the encoded tree alive beside its own bytes.
    init(_ session: LoadedSession, chrome: PageChrome) {
        self.session = session
        self.session.encoded = nil
        self.chrome = chrome
    }

    /// Takes the session's current times from `stamp` (a renewal moves them without a new
    /// version).
    func update(_ stamp: SessionStamp) {
        session.record.lastUsedAt = stamp.lastUsedAt
        session.record.expiresAt = stamp.expiresAt
    }

    /// Counts a showing; whether it is time to decode a tree of this thread's own: from the
    /// second showing for a small tree, later for a larger one, whose decoding only repays
    /// itself over more showings (one more per 4 KiB of JSON).
    func shownAgainWantsOwnTree() -> Bool {
        showings += 1
        return !treeIsOwn && showings >= 2 + session.record.tree.count / 4096
    }

    /// Replaces the shared tree with `own`, decoded from the record by this thread.
    func takeOwnTree(_ own: DecodedSessionCache.Decoded) {
        session.tree = own.tree
        session.extra = own.extra
        treeIsOwn = true
    }
}

extension SessionRecord {
    /// A copy of `shared` whose strings and arrays are in memory of its own.
    init(ownCopyOf shared: SessionRecord) {
        self = shared
        id = shared.id.ownCopy
        csrfToken = shared.csrfToken.ownCopy
        tree = shared.tree.withUnsafeBufferPointer { Array($0) }
        appData = shared.appData.withUnsafeBufferPointer { Array($0) }
        extra = shared.extra.withUnsafeBufferPointer { Array($0) }
    }
}

extension String {
    /// This text in storage of its own (a copy shares its storage, and with it the reference
    /// count every thread that reads it writes).
    var ownCopy: String {
        var text = self
        return text.withUTF8 { String(decoding: $0, as: UTF8.self) }
    }
}
