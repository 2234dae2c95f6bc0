/// What emits a contributed page's or flow's first steps (RxFlow's `Stepper`). On the web a
/// page's later steps come from its links and forms; a stepper gives the initial ones.
public protocol Stepper<Step>: Sendable {
    /// The app's step type.
    associatedtype Step: FlowStep
    /// The steps emitted as soon as the contribution takes effect, in order.
    var initialSteps: [Step] { get }
}

/// A stepper that emits one step (RxFlow's `OneStepper(withSingleStep:)`).
public struct OneStepper<Step: FlowStep>: Stepper {
    public let initialSteps: [Step]
    /// Emits `step`.
    public init(withSingleStep step: Step) { initialSteps = [step] }
}

/// A stepper made of others, whose initial steps it emits in order (RxFlow's `CompositeStepper`).
public struct CompositeStepper<Step: FlowStep>: Stepper {
    public let initialSteps: [Step]
    /// Emits the initial steps of `steppers`, in order.
    public init(steppers: [any Stepper<Step>]) { initialSteps = steppers.flatMap { $0.initialSteps } }
}

/// A stepper that emits nothing (RxFlow's `NoneStepper`).
public struct NoneStepper<Step: FlowStep>: Stepper {
    public var initialSteps: [Step] { [] }
    /// Emits nothing.
    public init() {}
}
