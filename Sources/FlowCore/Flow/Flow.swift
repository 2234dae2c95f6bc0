/// A navigation intent, such as `movieIsPicked(withId: 42)`. One `Codable` enum per app (as in
/// RxFlow's demo) keeps every flow's `navigate(to:)` exhaustive and free of casts.
public protocol FlowStep: Codable, Sendable, Hashable {}

/// How a flow arranges what it shows, in XCoordinator's terms.
public enum ContainerKind: String, Codable, Sendable, CaseIterable {
    /// One slot: a page or a child flow (an app's window).
    case single
    /// A navigation stack of pages; the last is on top.
    case stack
    /// One child flow per tab, exactly one selected.
    case tabs
    /// A master page and, optionally, a detail page beside it.
    case split
}

/// A coordinator: decides where each step leads. The flow value *is* its state: it is kept in the
/// session's tree, encoded with it, and `navigate(to:context:)` may change it.
///
/// ```swift
/// struct WatchedFlow: Flow {
///     static let name = "watched"
///     static let container = ContainerKind.stack
///
///     mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
///         switch step {
///         case .moviesAreRequired: .one(.push(WatchedPage()))
///         case .movieIsPicked(let id): .one(.push(MoviePage(id: id)))
///         default: .none
///         }
///     }
/// }
/// ```
///
/// `adapt(_:context:)` runs before `navigate(to:context:)` for every step, whatever its source,
/// and may replace or refuse it (RxFlow's `adapt(step:)`). It only decides: it cannot change the
/// flow's state (do that in `navigate`), and its decision is recorded, so replaying a history
/// rebuilds the same tree even when the decision depended on services or time.
public protocol Flow<Step>: FlowState {
    /// The app's step type.
    associatedtype Step: FlowStep
    /// Where `step` leads: pages to show, child flows to start, steps to forward.
    mutating func navigate(to step: Step, context: FlowContext) -> FlowContributors<Step>
    /// The step to navigate instead of `step`, or a refusal. Runs before every navigation.
    func adapt(_ step: Step, context: FlowContext) async -> StepAdaptation<Step>
}

extension Flow {
    /// By default a flow navigates every step as it is.
    public func adapt(_ step: Step, context: FlowContext) async -> StepAdaptation<Step> { .step(step) }
}

/// What the tree stores of a flow: its registered name, its container, and its `Codable` state
/// (the flow value itself). ``Flow`` adds the navigation.
public protocol FlowState: Codable, Sendable, Hashable {
    /// The name the flow is registered under (kept in encoded trees; never change it).
    static var name: String { get }
    /// The container the flow manages.
    static var container: ContainerKind { get }
}

/// What `adapt` decided.
public enum StepAdaptation<Step: FlowStep>: Codable, Sendable, Hashable {
    /// Navigate this step (the original, or a replacement).
    case step(Step)
    /// Navigate nothing.
    case refuse
}

/// A page (RxFlow's presentable): a node that renders. Its params are its stored properties; its
/// URL path derives from them, each value interpolated into it percent-encoded (``PagePath``).
///
/// ```swift
/// struct MoviePage: Page {
///     static let name = "movie"
///     var id: Int
///     var path: PagePath { "/movies/\(id)" }
/// }
/// ```
public protocol Page: Codable, Sendable, Hashable {
    /// The name the page is registered under (its template is usually named after it).
    static var name: String { get }
    /// The URL path of this page, derived from its params.
    var path: PagePath { get }
    /// Whether steps from this page still count after it left the tree (RxFlow's
    /// `allowStepWhenDismissed`); default `false`.
    static var allowsStepsWhenDismissed: Bool { get }
}

extension Page {
    public static var allowsStepsWhenDismissed: Bool { false }
}
