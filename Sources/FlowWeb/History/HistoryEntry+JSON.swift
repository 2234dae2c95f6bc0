import FlowCore

extension HistoryEntry {
    /// Appends this entry as the API shows it (Docs/CONTRACT.md §5, Entry), written straight into
    /// bytes: the one definition of its JSON (``encode(to:)`` writes it too). Every API step and
    /// visit answers with one; written through `Codable`, a small session's API step cost a tenth
    /// more CPU (Benchmarks/README.md). Absent values are `null`; `reason` is left out when absent;
    /// a step's params are in the order of their names.
    func write(into bytes: inout [UInt8]) {
        /// `,"name":`.
        func key(_ name: StaticString) {
            bytes.append(contentsOf: #",""#.utf8)
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: #"":"#.utf8)
        }
        func string(_ name: StaticString, _ text: String?) {
            key(name)
            if let text { JSONWriter.writeString(text, into: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        }
        func wireStep(_ name: StaticString, _ step: WireStep?) {
            key(name)
            guard let step else { return bytes.append(contentsOf: "null".utf8) }
            bytes.append(contentsOf: #"{"name":"#.utf8)
            JSONWriter.writeString(step.name, into: &bytes)
            bytes.append(contentsOf: #","params":{"#.utf8)
            for (index, param) in step.params.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(param.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONWriter.write(param.value.json, into: &bytes)
            }
            bytes.append(contentsOf: "}}".utf8)
        }
        bytes.append(contentsOf: #"{"seq":"#.utf8)
        JSONWriter.writeInteger(seq, into: &bytes)
        string("at", at)
        string("source", source.rawValue)
        wireStep("step", step)
        wireStep("adaptedStep", adaptedStep)
        key("from")
        if let from { JSONWriter.writeInteger(from, into: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        string("url", url)
        string("outcome", outcome.rawValue)
        key("actions")
        bytes.append(UInt8(ascii: "["))
        for (index, action) in actions.enumerated() {
            bytes.append(contentsOf: index > 0 ? #",{"kind":"#.utf8 : #"{"kind":"#.utf8)
            JSONWriter.writeString(action.kind.rawValue, into: &bytes)
            key("node")
            JSONWriter.writeInteger(action.node.rawValue, into: &bytes)
            if let page = action.page { string("page", page) }
            if let flow = action.flow { string("flow", flow) }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        key("top")
        bytes.append(contentsOf: #"{"node":"#.utf8)
        JSONWriter.writeInteger(top.node, into: &bytes)
        string("url", top.url)
        bytes.append(UInt8(ascii: "}"))
        key("version")
        JSONWriter.writeInteger(version, into: &bytes)
        if let reason { string("reason", reason) }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes the entry as the API shows it (Docs/CONTRACT.md §5, Entry).
    public func encode(to encoder: any Encoder) throws {
        var bytes: [UInt8] = []
        write(into: &bytes)
        var container = encoder.singleValueContainer()
        try container.encode(try JSON(parsing: bytes))
    }
}
