/// An app's navigation: its root flow with the stepper that starts it, and every flow and page
/// type a tree of it may hold (by name, so trees can be decoded).
///
/// ```swift
/// let app = try FlowApp(
///     root: AppFlow(), stepper: OneStepper(withSingleStep: DemoStep.dashboardIsRequired),
///     flows: [AppFlow.self, DashboardFlow.self, WishlistFlow.self],
///     pages: [WishlistPage.self, MoviePage.self])
/// ```
public struct FlowApp<Step: FlowStep>: Sendable {
    /// The root flow, as the app starts it.
    public let root: AnyFlow<Step>
    /// The root's initial steps.
    public let initialSteps: [Step]
    let flowTypes: [String: any Flow<Step>.Type]
    let pageTypes: [String: any Page.Type]

    /// An app definition.
    ///
    /// - Throws: ``NavigationError`` when two types share a name or the root's type is not
    ///   among `flows`.
    public init(root: some Flow<Step>, stepper: some Stepper<Step>, flows: [any Flow<Step>.Type], pages: [any Page.Type]) throws(NavigationError) {
        self.root = AnyFlow(root)
        initialSteps = stepper.initialSteps
        var flowTypes: [String: any Flow<Step>.Type] = [:]
        for type in flows {
            guard flowTypes.updateValue(type, forKey: type.name) == nil else { throw .duplicateName(type.name) }
        }
        var pageTypes: [String: any Page.Type] = [:]
        for type in pages {
            guard pageTypes.updateValue(type, forKey: type.name) == nil else { throw .duplicateName(type.name) }
        }
        guard flowTypes[self.root.name] != nil else { throw .unknownFlow(self.root.name) }
        self.flowTypes = flowTypes
        self.pageTypes = pageTypes
    }

    func check(_ flow: AnyFlow<Step>) throws(NavigationError) {
        guard flowTypes[flow.name] != nil else { throw .unknownFlow(flow.name) }
    }

    func check(_ page: AnyPage) throws(NavigationError) {
        guard pageTypes[page.name] != nil else { throw .unknownPage(page.name) }
        guard page.path.hasPrefix("/") else {
            throw .invalidTree("page \"\(page.name)\" derives the path \"\(page.path)\"; paths start with /")
        }
    }
}
