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

    /// Encodes absent values as `null`, as the contract shows them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(at, forKey: .at)
        try container.encode(source, forKey: .source)
        try encodeOrNull(step, .step, &container)
        try encodeOrNull(adaptedStep, .adaptedStep, &container)
        try encodeOrNull(from, .from, &container)
        try encodeOrNull(url, .url, &container)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(actions, forKey: .actions)
        try container.encode(top, forKey: .top)
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(reason, forKey: .reason)
    }

    private func encodeOrNull<T: Encodable>(
        _ value: T?, _ key: CodingKeys, _ container: inout KeyedEncodingContainer<CodingKeys>
    ) throws {
        if let value { try container.encode(value, forKey: key) } else { try container.encodeNil(forKey: key) }
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
