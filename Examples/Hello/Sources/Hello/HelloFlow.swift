import FlowCore
import FlowWeb

/// What a link or a form on Hello's pages can ask for.
enum HelloStep: FlowStep {
    /// Show the form that asks for a name.
    case nameIsRequired
    /// The form was sent.
    case nameIsEntered(name: String)
}

/// Hello's one flow: a stack that starts with the name form and pushes the greeting.
struct HelloFlow: Flow {
    static let name = "hello"
    static let container = ContainerKind.stack

    mutating func navigate(to step: HelloStep, context: FlowContext) -> FlowContributors<HelloStep> {
        switch step {
        case .nameIsRequired: .one(.push(NamePage()))
        case .nameIsEntered(let name): .one(.push(GreetingPage(name: name)))
        }
    }
}
