import FlowCore

extension SessionExtra {
    /// The stored form of this bookkeeping, written straight into bytes: the one definition of
    /// the format (``encode(to:)`` writes it too). A form step changes the bookkeeping at every
    /// commit (its submission is remembered); written through `Codable`, a form step on the
    /// memory store cost a tenth more CPU (Benchmarks/README.md).
    func jsonBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48 + submissions.count * 72)
        /// `"name":` after a comma unless it is the object's first member.
        func key(_ name: StaticString, first: Bool = false) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: #"":"#.utf8)
        }
        func string(_ name: StaticString, _ value: String) {
            key(name)
            JSONWriter.writeString(value, into: &bytes)
        }
        func integer(_ name: StaticString, _ value: Int) {
            key(name)
            JSONWriter.writeInteger(value, into: &bytes)
        }
        bytes.append(UInt8(ascii: "{"))
        key("submissions", first: true)
        bytes.append(UInt8(ascii: "["))
        for (index, submission) in submissions.enumerated() {
            bytes.append(contentsOf: index > 0 ? #",{"render":"#.utf8 : #"{"render":"#.utf8)
            JSONWriter.writeString(submission.render, into: &bytes)
            string("step", submission.step)
            string("location", submission.location)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        if !snapshots.isEmpty {
            key("snapshots")
            Self.write(snapshots, into: &bytes)
        }
        if let restartedAt { integer("restarted", restartedAt) }
        if level != 0 { integer("level", level) }
        if !levels.isEmpty {
            key("levels")
            bytes.append(UInt8(ascii: "["))
            for (index, pair) in levels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.write(pair, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if let appVersion { string("app", appVersion) }
        if let failedForm {
            key("form")
            bytes.append(contentsOf: #"{"version":"#.utf8)
            JSONWriter.writeInteger(failedForm.version, into: &bytes)
            integer("page", failedForm.page)
            key("values")
            Self.write(failedForm.values, into: &bytes)
            key("errors")
            Self.write(failedForm.errors, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Writes the same document as ``jsonBytes()``.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(try JSON(parsing: jsonBytes()))
    }

    private static func write(_ numbers: [Int], into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, number) in numbers.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.writeInteger(number, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An object of `strings`, its keys in order.
    private static func write(_ strings: [String: String], into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, key) in strings.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.writeString(strings[key] ?? "", into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
