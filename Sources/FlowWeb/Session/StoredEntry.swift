import FlowCore

/// What the store keeps per history entry: the navigation record (with `adapt`'s decisions, so
/// a history replays to the same tree) and what the public ``HistoryEntry`` adds to it. The
/// public entry is derived on reading, so nothing is stored twice.
///
/// Stored as `{"seq", "at", "source", "url"?, "version", "navigation"}`. Entries written by
/// earlier versions, `{"entry": HistoryEntry, "navigation"}`, are still read.
struct StoredEntry<Step: FlowStep>: Codable {
    var seq: Int
    var at: String
    var source: HistoryEntry.Source
    var url: String?
    var version: Int
    var navigation: Navigation<Step>

    init(seq: Int, at: String, source: HistoryEntry.Source, url: String?, version: Int, navigation: Navigation<Step>) {
        self.seq = seq
        self.at = at
        self.source = source
        self.url = url
        self.version = version
        self.navigation = navigation
    }

    /// The entry as the JSON API shows it.
    var entry: HistoryEntry {
        var step: WireStep?
        var from: Int?
        if case .step(let value, let source) = navigation.trigger {
            step = try? WireStep(value)
            from = source?.rawValue
        }
        return HistoryEntry(
            seq: seq, at: at, source: source, step: step, adaptedStep: navigation.adaptedStep.flatMap { try? WireStep($0) },
            from: from, url: url, outcome: navigation.outcome, actions: navigation.actions,
            top: .init(node: navigation.top.rawValue, url: navigation.topURL), version: version)
    }

    private enum CodingKeys: String, CodingKey { case seq, at, source, url, version, navigation, entry }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        navigation = try container.decode(Navigation<Step>.self, forKey: .navigation)
        if let legacy = try container.decodeIfPresent(HistoryEntry.self, forKey: .entry) {
            (seq, at, source, url, version) = (legacy.seq, legacy.at, legacy.source, legacy.url, legacy.version)
        } else {
            seq = try container.decode(Int.self, forKey: .seq)
            at = try container.decode(String.self, forKey: .at)
            source = try container.decode(HistoryEntry.Source.self, forKey: .source)
            url = try container.decodeIfPresent(String.self, forKey: .url)
            version = try container.decode(Int.self, forKey: .version)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(at, forKey: .at)
        try container.encode(source, forKey: .source)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encode(version, forKey: .version)
        try container.encode(navigation, forKey: .navigation)
    }
}
