import FlowCore

/// The stored form of a ``Navigation``, read here and written by ``StoredEntryWriter``: every
/// record a JSON array of its fields in a fixed order, trailing empty fields left out. A history keeps thousands of these per session, and the keys of
/// the API form (`"kind"`, `"node"`, `"flowName"`, …) were half of their bytes.
///
///     navigation: [trigger, outcome, [action…], [step…], top, topURL, adaptedStep?]
///     trigger:    "start" | ["step", step, from?] | ["visit", node]
///     action:     [kind, node, page?, flow?]          ["push",7,"login"], ["startFlow",1,null,"app"]
///     step:       [flow, flowName, step, adaptation?]  adaptation only when `adapt` changed the step
struct StoredNavigation<Step: FlowStep>: Decodable {
    var navigation: Navigation<Step>

    init(from decoder: any Decoder) throws {
        var fields = try decoder.unkeyedContainer()
        let trigger = try fields.decode(StoredTrigger<Step>.self).trigger
        let outcome = try fields.decode(NavigationOutcome.self)
        let actions = try fields.decode([StoredAction].self).map(\.action)
        let steps = try fields.decode([StoredStep<Step>].self).map { $0.step }
        let top = try fields.decode(NodeID.self)
        let topURL = try fields.decode(String.self)
        let adaptedStep = fields.isAtEnd ? nil : try fields.decode(Step.self)
        navigation = Navigation(
            trigger: trigger, outcome: outcome, adaptedStep: adaptedStep, actions: actions, steps: steps, top: top,
            topURL: topURL)
    }
}

/// `"start"`, `["step", step, from?]` or `["visit", node]`.
private struct StoredTrigger<Step: FlowStep>: Decodable {
    var trigger: Navigation<Step>.Trigger

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            guard name == "start" else { throw Self.unknown(name, decoder) }
            trigger = .start
            return
        }
        var fields = try decoder.unkeyedContainer()
        let kind = try fields.decode(String.self)
        switch kind {
        case "step":
            let step = try fields.decode(Step.self)
            trigger = .step(step, from: fields.isAtEnd ? nil : try fields.decode(NodeID.self))
        case "visit":
            trigger = .visit(try fields.decode(NodeID.self))
        default:
            throw Self.unknown(kind, decoder)
        }
    }

    private static func unknown(_ kind: String, _ decoder: any Decoder) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: decoder.codingPath,
                debugDescription: "unknown navigation trigger \"\(kind)\" (expected start, step or visit)"))
    }
}

/// `[kind, node, page?, flow?]`.
private struct StoredAction: Decodable {
    var action: NavigationAction

    init(from decoder: any Decoder) throws {
        var fields = try decoder.unkeyedContainer()
        let kind = try fields.decode(NavigationAction.Kind.self)
        let node = try fields.decode(NodeID.self)
        let page = fields.isAtEnd ? nil : try fields.decodeIfPresent(String.self)
        let flow = fields.isAtEnd ? nil : try fields.decode(String.self)
        action = NavigationAction(kind: kind, node: node, page: page, flow: flow)
    }
}

/// `[flow, flowName, step, adaptation?]`, the adaptation only when it is not the step itself.
private struct StoredStep<Step: FlowStep>: Decodable {
    var step: NavigatedStep<Step>

    init(from decoder: any Decoder) throws {
        var fields = try decoder.unkeyedContainer()
        let flow = try fields.decode(NodeID.self)
        let flowName = try fields.decode(String.self)
        let value = try fields.decode(Step.self)
        let adaptation = fields.isAtEnd ? .step(value) : try fields.decode(StepAdaptation<Step>.self)
        step = NavigatedStep(flow: flow, flowName: flowName, step: value, adaptation: adaptation)
    }
}
