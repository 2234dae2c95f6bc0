import FlowCore

/// One navigation of a session as the JSON API shows it (Docs/CONTRACT.md §5, Entry).
public struct HistoryEntry: Codable, Sendable, Hashable {
    /// Where a navigation came from.
    public enum Source: String, Codable, Sendable, Hashable {
        /// The session started (the app's initial steps).
        case start
        /// A step link (`GET /_step/…`).
        case link
        /// A step form (`POST /_step`).
        case form
        /// A page visit that changed the tree (Back, a tab link).
        case visit
        /// A deep-link route.
        case deeplink
        /// The JSON API.
        case api
        /// The app could not read the stored session (it changed since the session was stored),
        /// so the session started again from the app's initial state; ``HistoryEntry/reason``
        /// says why.
        case restart
    }

    /// The top page after the navigation.
    public struct Top: Codable, Sendable, Hashable {
        /// Its node.
        public var node: Int
        /// Its URL.
        public var url: String
    }

    /// Grows by one per entry within the session.
    public var seq: Int
    /// When, in RFC 3339 UTC.
    public var at: String
    /// Where it came from.
    public var source: Source
    /// The step, for step navigations.
    public var step: WireStep?
    /// What `adapt` turned the step into, when it did.
    public var adaptedStep: WireStep?
    /// The page the step came from.
    public var from: Int?
    /// The URL visited or deep-linked.
    public var url: String?
    /// What happened.
    public var outcome: NavigationOutcome
    /// The changes.
    public var actions: [NavigationAction]
    /// The top page afterwards.
    public var top: Top
    /// The session's version afterwards.
    public var version: Int
    /// Why the session started again, on a ``Source/restart`` entry, or which of the session's
    /// limits refused a navigation (``SessionLimits``); left out elsewhere.
    public var reason: String? = nil

    private enum CodingKeys: String, CodingKey {
        case seq, at, source, step, adaptedStep, from, url, outcome, actions, top, version, reason
    }
}

extension HistoryEntry {
    /// A history entry's sequence number from a path, or `404`: no entry has that name.
    static func sequenceNumber(_ text: String?) throws(WebError) -> Int {
        guard let text, let seq = Int(text), seq >= 1 else {
            throw .notFound("There is no history entry \"\(text ?? "")\": entries are numbered from 1.")
        }
        return seq
    }
}
