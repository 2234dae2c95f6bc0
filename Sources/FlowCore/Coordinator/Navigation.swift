/// What happened to a step or a visit.
public enum NavigationOutcome: String, Codable, Sendable, Hashable {
    /// The tree changed.
    case navigated
    /// Flows handled it; the tree's pages and flows stayed as they were.
    case unchanged
    /// The step came from a page no longer in the tree (and not allowed after dismissal), or
    /// no flow on the responder chain navigated it.
    case ignored
    /// The first flow's `adapt` replaced the step.
    case adapted
    /// The first flow's `adapt` refused the step.
    case rejected
}

/// One change to the tree, with the node it concerns.
public struct NavigationAction: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The kind of change.
    public enum Kind: String, Codable, Sendable, Hashable {
        /// A page entered a stack, a split or a single flow's slot.
        case push
        /// A page left its container.
        case pop
        /// A page or a flow was presented modally.
        case present
        /// What was presented went away.
        case dismiss
        /// Another tab was selected.
        case select
        /// A flow started.
        case startFlow
        /// A flow ended, with everything below it.
        case endFlow
    }

    /// The kind of change.
    public var kind: Kind
    /// The page or flow node concerned (for `select`: the selected tab's flow).
    public var node: NodeID
    /// The page's name, for pages.
    public var page: String?
    /// The flow's name, for flows.
    public var flow: String?

    /// An action on `node`, naming its page or its flow.
    public init(kind: Kind, node: NodeID, page: String?, flow: String?) {
        self.kind = kind
        self.node = node
        self.page = page
        self.flow = flow
    }

    /// An action on a page.
    public static func page(_ kind: Kind, _ node: NodeID, _ page: String) -> Self {
        Self(kind: kind, node: node, page: page, flow: nil)
    }

    /// An action on a flow.
    public static func flow(_ kind: Kind, _ node: NodeID, _ flow: String) -> Self {
        Self(kind: kind, node: node, page: nil, flow: flow)
    }

    /// E.g. `push movie#7`.
    public var description: String { "\(kind.rawValue) \(page ?? flow ?? "?")#\(node)" }
}

/// One step a flow navigated during a navigation, in order: the original step, then steps from
/// steppers and forwards.
///
/// Encoded as `{"flow", "flowName", "step", "adaptation"?}`: the adaptation is left out when
/// `adapt` kept the step as it was (nearly always), since histories keep one per step.
public struct NavigatedStep<Step: FlowStep>: Codable, Sendable, Hashable {
    /// The flow's node.
    public var flow: NodeID
    /// The flow's name.
    public var flowName: String
    /// The step as it arrived.
    public var step: Step
    /// What the flow's `adapt` decided (recorded so replays need not call `adapt` again).
    public var adaptation: StepAdaptation<Step>

    /// A record of `step` navigated by flow `flow`.
    public init(flow: NodeID, flowName: String, step: Step, adaptation: StepAdaptation<Step>) {
        self.flow = flow
        self.flowName = flowName
        self.step = step
        self.adaptation = adaptation
    }
}

extension NavigatedStep {
    private enum CodingKeys: String, CodingKey { case flow, flowName, step, adaptation }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        flow = try container.decode(NodeID.self, forKey: .flow)
        flowName = try container.decode(String.self, forKey: .flowName)
        step = try container.decode(Step.self, forKey: .step)
        adaptation = try container.decodeIfPresent(StepAdaptation<Step>.self, forKey: .adaptation) ?? .step(step)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(flow, forKey: .flow)
        try container.encode(flowName, forKey: .flowName)
        try container.encode(step, forKey: .step)
        if adaptation != .step(step) { try container.encode(adaptation, forKey: .adaptation) }
    }
}

/// The record of one navigation: what came in, what was decided, what changed.
public struct Navigation<Step: FlowStep>: Codable, Sendable, Hashable {
    /// What started it.
    public enum Trigger: Codable, Sendable, Hashable {
        /// The app's start: the root flow's initial steps.
        case start
        /// A step, from a page (or, without one, up the responder chain).
        case step(Step, from: NodeID?)
        /// A visit that made a page visible.
        case visit(NodeID)
    }

    /// What started it.
    public var trigger: Trigger
    /// What happened.
    public var outcome: NavigationOutcome
    /// The step the first flow navigated instead, when its `adapt` replaced it.
    public var adaptedStep: Step?
    /// The changes, in order.
    public var actions: [NavigationAction]
    /// Every step navigated, in order.
    public var steps: [NavigatedStep<Step>]
    /// The top page afterwards.
    public var top: NodeID
    /// The top page's URL afterwards.
    public var topURL: String

    /// A navigation record.
    public init(
        trigger: Trigger, outcome: NavigationOutcome, adaptedStep: Step?, actions: [NavigationAction],
        steps: [NavigatedStep<Step>],
        top: NodeID, topURL: String
    ) {
        self.trigger = trigger
        self.outcome = outcome
        self.adaptedStep = adaptedStep
        self.actions = actions
        self.steps = steps
        self.top = top
        self.topURL = topURL
    }
}
