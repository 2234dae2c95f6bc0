import FlowCore

/// `POST /api/v1/sessions` answers `{"session": id, "state": State}`.
struct CreatedDocument {
    /// The document's JSON text.
    let bytes: [UInt8]

    init(session: String, state: StateDocument) {
        var bytes = Array(#"{"session":"#.utf8)
        JSONWriter.writeString(session, into: &bytes)
        bytes.append(contentsOf: #","state":"#.utf8)
        bytes.append(contentsOf: state.bytes)
        bytes.append(UInt8(ascii: "}"))
        self.bytes = bytes
    }
}

/// `GET /api/v1/session/history` answers `{"entries": [Entry], "next": seq or null}`.
struct HistoryPageDocument {
    /// The document's JSON text.
    let bytes: [UInt8]

    init(entries: [HistoryEntry], next: Int?) {
        var bytes = Array(#"{"entries":["#.utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            entry.write(into: &bytes)
        }
        bytes.append(contentsOf: #"],"next":"#.utf8)
        if let next { JSONWriter.writeInteger(next, into: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        bytes.append(UInt8(ascii: "}"))
        self.bytes = bytes
    }
}

/// Steps and visits answer `{"entry": Entry, "state": State}`.
struct NavigationDocument {
    /// The document's JSON text.
    let bytes: [UInt8]

    init(entry: HistoryEntry, state: StateDocument) {
        var bytes = Array(#"{"entry":"#.utf8)
        entry.write(into: &bytes)
        bytes.append(contentsOf: #","state":"#.utf8)
        bytes.append(contentsOf: state.bytes)
        bytes.append(UInt8(ascii: "}"))
        self.bytes = bytes
    }
}

/// `POST /api/v1/session/steps` takes `{"step": Step, "from": node?}`: `from` left out means the
/// top page; `"from": null` is refused like any other value that is not a node number.
struct StepBody: DirectJSONBody {
    var step: WireStep
    var from: Int?

    init?(direct json: JSON) {
        guard case .object(let fields) = json, fields.count <= 2,
            let step = json["step"].flatMap(WireStep.init(direct:))
        else { return nil }
        switch json["from"] {
        case nil: guard fields.count == 1 else { return nil }
        case .int(let node)?: from = node
        default: return nil
        }
        self.step = step
    }

    private enum CodingKeys: String, CodingKey { case step, from }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        step = try container.decode(WireStep.self, forKey: .step)
        from = container.contains(.from) ? try container.decode(Int.self, forKey: .from) : nil
    }
}

/// `POST /api/v1/session/visits` takes `{"url": path}`.
struct VisitBody: DirectJSONBody {
    var url: String

    init?(direct json: JSON) {
        guard case .object(let fields) = json, fields.count == 1, case .string(let url)? = json["url"] else {
            return nil
        }
        self.url = url
    }
}
