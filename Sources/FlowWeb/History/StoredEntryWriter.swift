import FlowCore

/// Writes a ``StoredEntry`` in its stored form (see ``StoredEntry`` and ``StoredNavigation``)
/// straight into bytes: only the app's steps go through `Codable`. Every commit writes one.
struct StoredEntryWriter<Step: FlowStep> {
    /// What was written.
    private(set) var bytes: [UInt8] = []
    /// The last step written, and its JSON form.
    private var lastStep: (step: Step, json: [UInt8])?

    /// `[at, source, version, url?, navigation]`, then the snapshot's tree and app data and the
    /// reason when the entry has either.
    mutating func write(_ entry: StoredEntry<Step>) throws {
        bytes.append(UInt8(ascii: "["))
        if let at = entry.at { JSONWriter.writeInteger(Int(at), into: &bytes) } else { append("null") }
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeString(entry.source.rawValue, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeInteger(entry.version, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        if let url = entry.url { JSONWriter.writeString(url, into: &bytes) } else { append("null") }
        bytes.append(UInt8(ascii: ","))
        try write(entry.navigation)
        if entry.snapshot != nil || entry.reason != nil {
            // The tree and app data are JSON already: written as they are, not as strings.
            bytes.append(UInt8(ascii: ","))
            if let tree = entry.snapshot?.tree { bytes += tree } else { append("null") }
            bytes.append(UInt8(ascii: ","))
            if let appData = entry.snapshot?.appData, !appData.isEmpty { bytes += appData } else { append("null") }
            if let reason = entry.reason {
                bytes.append(UInt8(ascii: ","))
                JSONWriter.writeString(reason, into: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `[trigger, outcome, [action…], [step…], top, topURL, adaptedStep?]`.
    private mutating func write(_ navigation: Navigation<Step>) throws {
        bytes.append(UInt8(ascii: "["))
        switch navigation.trigger {
        case .start: append(#""start""#)
        case .step(let step, let from):
            append(#"["step","#)
            try writeStep(step)
            if let from {
                bytes.append(UInt8(ascii: ","))
                JSONWriter.writeInteger(from.rawValue, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .visit(let node):
            append(#"["visit","#)
            JSONWriter.writeInteger(node.rawValue, into: &bytes)
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeString(navigation.outcome.rawValue, into: &bytes)
        append(",[")
        for (index, action) in navigation.actions.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(action)
        }
        append("],[")
        // By index: `enumerated()` of steps of the app's type looks up its tuple's metadata at
        // every entry, in code not specialized for that type.
        for index in navigation.steps.indices {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try write(navigation.steps[index])
        }
        append("],")
        JSONWriter.writeInteger(navigation.top.rawValue, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeString(navigation.topURL, into: &bytes)
        if let adaptedStep = navigation.adaptedStep {
            bytes.append(UInt8(ascii: ","))
            try writeStep(adaptedStep)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `[kind, node, page?, flow?]`: `page` is `null` before a flow.
    private mutating func write(_ action: NavigationAction) {
        bytes.append(UInt8(ascii: "["))
        JSONWriter.writeString(action.kind.rawValue, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeInteger(action.node.rawValue, into: &bytes)
        if action.page != nil || action.flow != nil {
            bytes.append(UInt8(ascii: ","))
            if let page = action.page { JSONWriter.writeString(page, into: &bytes) } else { append("null") }
        }
        if let flow = action.flow {
            bytes.append(UInt8(ascii: ","))
            JSONWriter.writeString(flow, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `[flow, flowName, step, adaptation?]`, the adaptation only when it is not the step itself.
    private mutating func write(_ step: NavigatedStep<Step>) throws {
        bytes.append(UInt8(ascii: "["))
        JSONWriter.writeInteger(step.flow.rawValue, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeString(step.flowName, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        try writeStep(step.step)
        if step.adaptation != .step(step.step) {
            bytes.append(UInt8(ascii: ","))
            bytes += try CompactJSONEncoder().encode(step.adaptation)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `step`'s JSON form. An entry names its step up to three times (its trigger, each
    /// flow that navigated it, its adaptation): the form of the last step written is kept, and
    /// copied when the next is equal.
    private mutating func writeStep(_ step: Step) throws {
        if let lastStep, lastStep.step == step {
            bytes += lastStep.json
            return
        }
        let json = try CompactJSONEncoder().encode(step)
        bytes += json
        lastStep = (step, json)
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
