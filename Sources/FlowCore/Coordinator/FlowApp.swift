/// An app's navigation: its root flow with the stepper that starts it, every flow and page
/// type a tree of it may hold (by name, so trees can be decoded), and the type of its sessions'
/// ``AppData``.
///
/// ```swift
/// let app = try FlowApp(
///     root: AppFlow(), stepper: OneStepper(withSingleStep: DemoStep.dashboardIsRequired),
///     flows: [AppFlow.self, DashboardFlow.self, WishlistFlow.self],
///     pages: [WishlistPage.self, MoviePage.self])
/// ```
public struct FlowApp<Step: FlowStep>: Sendable {
    /// The root flow, as the app starts it.
    public let root: AnyFlow
    /// The root's initial steps.
    public let initialSteps: [Step]
    /// The flow and page types by name, for checking contributions and decoding trees.
    public let registry: FlowRegistry
    /// For each flow type, by name: its `adapt` and `navigate` on a stored flow value.
    let navigators: [String: FlowNavigator<Step>]

    /// An app definition.
    ///
    /// - Parameters:
    ///   - root: the root flow, as every session starts with it.
    ///   - stepper: the root's initial steps.
    ///   - flows: every flow type a tree may hold (the root's included).
    ///   - pages: every page type a tree may hold.
    ///   - appData: the type of each session's app data (none by default).
    /// - Throws: ``NavigationError`` when two types share a name or the root's type is not
    ///   among `flows`.
    public init(
        root: some Flow<Step>, stepper: some Stepper<Step>, flows: [any Flow<Step>.Type], pages: [any Page.Type],
        appData: any AppData.Type = NoAppData.self
    ) throws(NavigationError) {
        self.root = AnyFlow(root)
        initialSteps = stepper.initialSteps
        var flowTypes: [String: any FlowState.Type] = [:]
        var navigators: [String: FlowNavigator<Step>] = [:]
        for type in flows {
            guard flowTypes.updateValue(type, forKey: type.name) == nil else { throw .duplicateName(type.name) }
            navigators[type.name] = FlowNavigator(type)
        }
        self.navigators = navigators
        var pageTypes: [String: any Page.Type] = [:]
        for type in pages {
            guard pageTypes.updateValue(type, forKey: type.name) == nil else { throw .duplicateName(type.name) }
        }
        guard flowTypes[self.root.name] != nil else { throw .unknownFlow(self.root.name) }
        registry = FlowRegistry(flowTypes: flowTypes, pageTypes: pageTypes, appDataType: appData)
    }
}

/// Navigates stored flow values of one flow type: the type is known when the app registers it,
/// so a navigation needs no cast to a parameterized protocol, only to this concrete type.
struct FlowNavigator<Step: FlowStep>: Sendable {
    let adapt: @Sendable (any FlowState, Step, FlowContext) async -> StepAdaptation<Step>
    let navigate: @Sendable (inout any FlowState, Step, FlowContext) -> FlowContributors<Step>

    init<F: Flow<Step>>(_ type: F.Type) {
        adapt = { state, step, context in await (state as! F).adapt(step, context: context) }
        navigate = { state, step, context in
            var flow = state as! F
            defer { state = flow }
            return flow.navigate(to: step, context: context)
        }
    }
}

/// The flow and page types of an app by their registered names, and its app data type.
/// Decoders find it in `userInfo[.flowRegistry]`.
public struct FlowRegistry: Sendable {
    let flowTypes: [String: any FlowState.Type]
    let pageTypes: [String: any Page.Type]
    let appDataType: any AppData.Type

    /// The app data a new session starts with.
    public var initialAppData: AnyAppData {
        func make<Data: AppData>(_ type: Data.Type) -> AnyAppData { AnyAppData(Data()) }
        return make(appDataType)
    }

    /// App data read back from its JSON (empty bytes: the initial value).
    ///
    /// - Throws: `DecodingError` when the bytes are not the app's data type.
    public func appData(json: [UInt8]) throws -> AnyAppData {
        guard !json.isEmpty else { return initialAppData }
        func decode<Data: AppData>(_ type: Data.Type) throws -> AnyAppData {
            AnyAppData(try CompactJSONDecoder().decode(Data.self, from: json))
        }
        return try decode(appDataType)
    }

    /// The registered page names, sorted.
    public var pageNames: [String] { pageTypes.keys.sorted() }
    /// The registered flow names, sorted.
    public var flowNames: [String] { flowTypes.keys.sorted() }

    func check(_ flow: AnyFlow) throws(NavigationError) {
        guard flowTypes[flow.name] != nil else { throw .unknownFlow(flow.name) }
    }

    func check(_ page: AnyPage) throws(NavigationError) {
        guard pageTypes[page.name] != nil else { throw .unknownPage(page.name) }
        guard page.path.hasPrefix("/") else {
            throw .invalidTree("page \"\(page.name)\" derives the path \"\(page.path)\"; paths start with /")
        }
    }
}
