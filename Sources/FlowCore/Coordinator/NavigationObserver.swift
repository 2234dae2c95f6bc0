/// Sees every navigation anywhere in the tree (logging, metrics, tests): `willNavigate` right
/// before a flow's `navigate(to:)`, `didNavigate` right after, with the step it navigates.
///
/// ```swift
/// struct Logger: NavigationObserver {
///     func willNavigate(flow: FlowReference, step: DemoStep) { print("→ \(flow.name): \(step)") }
///     func didNavigate(flow: FlowReference, step: DemoStep) {}
/// }
/// ```
public protocol NavigationObserver<Step>: Sendable {
    /// The app's step type.
    associatedtype Step: FlowStep
    /// A flow is about to navigate `step`.
    func willNavigate(flow: FlowReference, step: Step)
    /// A flow navigated `step`.
    func didNavigate(flow: FlowReference, step: Step)
}

/// A flow as observers see it: its node and name.
public struct FlowReference: Sendable, Hashable, CustomStringConvertible {
    /// The flow's node id.
    public var node: NodeID
    /// The flow's registered name.
    public var name: String
    public var description: String { "\(name)#\(node)" }
}
