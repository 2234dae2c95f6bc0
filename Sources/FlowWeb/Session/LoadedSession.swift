import FlowCore
import FlowStore

/// A session read from the store for one request.
struct LoadedSession: Sendable {
    /// The stored snapshot (for a session not stored yet, the one its first change stores from).
    var record: SessionRecord
    /// The decoded tree.
    var tree: NavigationTree
    /// The last tree this instance committed of the session, encoded: a commit copies from it
    /// what did not change (`nil` until this instance commits the session).
    var encoded: EncodedTree? = nil
    /// The root's State as this instance last answered it through the API, when it has long
    /// stacks: the next State copies from it what did not change (see ``StateDocument``).
    var encodedState: EncodedTree? = nil
    /// The web layer's bookkeeping.
    var extra: SessionExtra
    /// Makes the history entries this request committed (not stored with the session): only the
    /// API's answer shows them, so a commit leaves them in its own form until one is asked for.
    var makeCommitted: @Sendable () -> [HistoryEntry] = { [] }
    /// The history entries this request committed.
    var committed: [HistoryEntry] { makeCommitted() }
    /// Whether the store holds the session; `false` while it is still at the app's initial
    /// state (see ``InitialState``).
    var isStored = true
    /// The address of the client this request came from, whose rate of new stored sessions is
    /// limited (see ``SessionCreationLimit``); `nil` when not limited.
    var client: String?
    /// Whether the store said this copy was current when this request read it; `false` for a
    /// copy this instance held, taken for a change without asking (``SessionService/loadForChange(_:)``):
    /// the commit's version check confirms it, and an answer that commits nothing reads first.
    var isConfirmed = true
}

extension LoadedSession {
    /// What the session's pages say after it started again because the app was updated.
    static var restartNotice: String {
        "This site was updated since your last visit, so your session started again from the beginning."
    }

    /// The notice every page of the session shows now, if any: ``restartNotice`` while the
    /// session is at the version it started again with.
    var notice: String? {
        extra.restartedAt == record.version ? Self.restartNotice : nil
    }

    /// The form its page found invalid, shown again with its messages and input while the
    /// session is at the version that kept it (the next change of the session forgets it).
    var failedForm: PageComposer.FormState? {
        guard let kept = extra.failedForm, kept.version == record.version else { return nil }
        return PageComposer.FormState(page: NodeID(rawValue: kept.page), values: kept.values, errors: kept.errors)
    }
}

/// Bookkeeping the web layer keeps with each session.
struct SessionExtra: Codable, Sendable {
    /// A step already applied for a rendering (`_r`), and where it led.
    struct Submission: Codable, Sendable {
        var render: String
        var step: String
        var location: String
    }

    /// A form its page found invalid, kept for the page that answers the redirect after it
    /// (post/redirect/get): shown while the session has `version`, the version its commit gave.
    struct FailedForm: Codable, Sendable {
        var version: Int
        var page: Int
        var values: [String: String]
        var errors: [String: String]

        /// What is kept of a submission's input: its fields but FlowServer's own (`_step`,
        /// `_csrf`, …), none longer than 4 KiB, and no more than 16 KiB in all.
        static func keptValues(_ fields: [String: String]) -> [String: String] {
            var kept: [String: String] = [:]
            var total = 0
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) where !name.hasPrefix("_") {
                let size = name.utf8.count + value.utf8.count
                guard value.utf8.count <= 4096, total + size <= 16_384 else { continue }
                kept[name] = value
                total += size
            }
            return kept
        }
    }

    /// The most recent submissions, the newest last.
    var submissions: [Submission] = []
    /// The last form its page found invalid (see ``LoadedSession/failedForm``).
    var failedForm: FailedForm?
    /// The sequence numbers of the history entries that carry a snapshot, ascending, as far back
    /// as ``HistoryRetention`` may fold the history to (none when it keeps everything).
    var snapshots: [Int] = []
    /// The version at which the session started again because the app could no longer read it
    /// (see ``SessionService/restart(_:because:)``): its pages say so while it has that version.
    var restartedAt: Int?
    /// How many of the app's migrations the session's stored tree and app data have had (see
    /// ``SessionMigration``).
    var level = 0
    /// From which session version on the history entries were written at which level, as
    /// `[version, level]` pairs, ascending; entries before the first pair are at level 0.
    var levels: [[Int]] = []
    /// The version of the app that last wrote the session (``WebApp/version``).
    var appVersion: String?
    /// Whether this changed since it was read or committed (not stored: an unchanged value keeps
    /// its stored bytes instead of being encoded again).
    var changed = false

    private enum CodingKeys: String, CodingKey {
        case submissions, snapshots, level, levels
        case restartedAt = "restarted"
        case appVersion = "app"
        case failedForm = "form"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        submissions = try container.decodeIfPresent([Submission].self, forKey: .submissions) ?? []
        snapshots = try container.decodeIfPresent([Int].self, forKey: .snapshots) ?? []
        restartedAt = try container.decodeIfPresent(Int.self, forKey: .restartedAt)
        level = try container.decodeIfPresent(Int.self, forKey: .level) ?? 0
        levels = try container.decodeIfPresent([[Int]].self, forKey: .levels) ?? []
        appVersion = try container.decodeIfPresent(String.self, forKey: .appVersion)
        failedForm = try container.decodeIfPresent(FailedForm.self, forKey: .failedForm)
    }

    /// The bookkeeping of a new session of an app at migration `level`, written by `appVersion`.
    init(level: Int, appVersion: String) {
        self.level = level
        levels = level > 0 ? [[1, level]] : []
        self.appVersion = appVersion
        changed = true
    }

    /// The level the history entry of session version `version` was written at.
    func level(ofEntryVersion version: Int) -> Int {
        levels.last { $0[0] <= version }?[1] ?? 0
    }

    /// Notes that the session's stored form is now at `level`, from its version `version` on.
    mutating func migrated(to level: Int, fromVersion version: Int) {
        self.level = level
        if levels.last?[1] != level { levels.append([version, level]) }
    }

    /// How many submissions are remembered: a double submit or a replayed `_r` comes within a
    /// few steps of the original.
    static let submissionLimit = 16

    mutating func remember(_ submission: Submission) {
        changed = true
        submissions.append(submission)
        if submissions.count > Self.submissionLimit {
            submissions.removeFirst(submissions.count - Self.submissionLimit)
        }
    }

    func location(render: String, step: String) -> String? {
        submissions.last { $0.render == render && $0.step == step }?.location
    }
}

/// A navigation to record as a history entry.
struct PendingEntry<Step: FlowStep>: Sendable {
    var source: HistoryEntry.Source
    var navigation: Navigation<Step>
    var url: String?
    /// Why the navigation was refused, when a session limit refused it.
    var reason: String? = nil
}
