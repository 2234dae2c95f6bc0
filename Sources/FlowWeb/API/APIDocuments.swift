/// `POST /api/v1/sessions` answers `{"session": id, "state": State}`.
struct CreatedDocument: Encodable {
    var session: String
    var state: StateDocument
}

/// `GET /api/v1/session/history` answers `{"entries": [Entry], "next": seq or null}`.
struct HistoryPageDocument: Encodable {
    var entries: [HistoryEntry]
    var next: Int?

    private enum CodingKeys: String, CodingKey { case entries, next }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        if let next { try container.encode(next, forKey: .next) } else { try container.encodeNil(forKey: .next) }
    }
}

/// Steps and visits answer `{"entry": Entry, "state": State}`.
struct NavigationDocument: Encodable {
    var entry: HistoryEntry
    var state: StateDocument
}

/// `POST /api/v1/session/steps` takes `{"step": Step, "from": node?}`.
struct StepBody: Decodable {
    var step: WireStep
    var from: Int?
}

/// `POST /api/v1/session/visits` takes `{"url": path}`.
struct VisitBody: Decodable {
    var url: String
}
