/// What a flow's `navigate(to:)` returns (RxFlow's `FlowContributors`).
///
/// ```swift
/// case .movieIsPicked(let id): .one(.push(MoviePage(id: id)))
/// case .settingsAreRequired:   .one(.present(SettingsFlow(), stepper: OneStepper(withSingleStep: .settingsAreRequired)))
/// case .settingsAreComplete:   .end(forwardToParentFlowWithStep: .dashboardIsRequired)
/// case .apiKeyIsFilledIn:      .triggerParentFlow(withStep: .onboardingIsComplete)
/// ```
public enum FlowContributors<Step: FlowStep>: Sendable {
    /// Nothing happens; a step without `from` then goes on up the responder chain.
    case none
    /// One contributor.
    case one(FlowContributor<Step>)
    /// Several contributors, taking effect in order.
    case multiple([FlowContributor<Step>])
    /// The flow ends (its pages and child flows leave the tree), then its parent navigates
    /// `step`. At the root the step is discarded and the root stays.
    case end(forwardToParentFlowWithStep: Step)
    /// The parent navigates `step`; this flow stays (same as `.one(.forwardToParentFlow(withStep:))`).
    case triggerParentFlow(withStep: Step)
}

/// One effect of a navigation, named after XCoordinator's transitions (push, pop, present,
/// dismiss, set, select, embed) plus RxFlow's forwarding.
///
/// Pages and child flows come with a stepper whose initial steps are navigated right after the
/// current navigation: a page's by this flow, a child flow's by the child only.
public struct FlowContributor<Step: FlowStep>: Sendable {
    enum Effect: Sendable {
        case push(AnyPage)
        case set([AnyPage])
        case presentPage(AnyPage)
        case presentFlow(AnyFlow)
        case show(AnyFlow)
        case tab(AnyFlow)
        case embed(AnyFlow)
        case pop
        case popTo(pageName: String)
        case popToRoot
        case dismiss
        case select(tab: Int)
        case forwardToCurrentFlow(Step)
        case forwardToParentFlow(Step)
        case forwardToTopFlow(Step)
    }

    let effect: Effect
    let initialSteps: [Step]
    let allowStepWhenNotPresented: Bool
    let allowStepWhenDismissed: Bool

    private init(
        _ effect: Effect, stepper: (any Stepper<Step>)? = nil, allowStepWhenNotPresented: Bool = false,
        allowStepWhenDismissed: Bool = false
    ) {
        self.effect = effect
        initialSteps = stepper?.initialSteps ?? []
        self.allowStepWhenNotPresented = allowStepWhenNotPresented
        self.allowStepWhenDismissed = allowStepWhenDismissed
    }

    /// Pushes `page` on this flow's stack (a split shows it as the detail; a single flow shows it
    /// in its slot). Steps from the page while it is hidden unwind to it, unless
    /// `allowStepWhenNotPresented`; after it left the tree they are ignored, unless
    /// `allowStepWhenDismissed` (or the page type allows it).
    public static func push(
        _ page: some Page, stepper: any Stepper<Step> = NoneStepper<Step>(),
        allowStepWhenNotPresented: Bool = false, allowStepWhenDismissed: Bool = false
    ) -> Self {
        Self(
            .push(AnyPage(page)), stepper: stepper, allowStepWhenNotPresented: allowStepWhenNotPresented,
            allowStepWhenDismissed: allowStepWhenDismissed)
    }

    /// Replaces this flow's pages with `pages` (a split: master, then detail).
    public static func set(_ pages: [any Page], stepper: any Stepper<Step> = NoneStepper<Step>()) -> Self {
        Self(.set(pages.map { AnyPage($0) }), stepper: stepper)
    }

    /// Presents `page` modally over this flow (an alert); what was presented is dismissed first.
    public static func present(
        _ page: some Page, stepper: any Stepper<Step> = NoneStepper<Step>(), allowStepWhenDismissed: Bool = false
    ) -> Self {
        Self(.presentPage(AnyPage(page)), stepper: stepper, allowStepWhenDismissed: allowStepWhenDismissed)
    }

    /// Starts `flow` presented modally over this flow; what was presented is dismissed first.
    public static func present(_ flow: some Flow<Step>, stepper: some Stepper<Step>) -> Self {
        Self(.presentFlow(AnyFlow(flow)), stepper: stepper)
    }

    /// Starts `flow` in this single flow's slot, ending what was there.
    public static func show(_ flow: some Flow<Step>, stepper: some Stepper<Step>) -> Self {
        Self(.show(AnyFlow(flow)), stepper: stepper)
    }

    /// Starts `flow` as the next tab of this tabs flow (the first tab is selected).
    public static func tab(_ flow: some Flow<Step>, stepper: some Stepper<Step>) -> Self {
        Self(.tab(AnyFlow(flow)), stepper: stepper)
    }

    /// Starts `flow` embedded in this flow's top page (shown inside it, like the demo's trending
    /// page with two nested flows); it ends when that page leaves the tree.
    public static func embed(_ flow: some Flow<Step>, stepper: some Stepper<Step>) -> Self {
        Self(.embed(AnyFlow(flow)), stepper: stepper)
    }

    /// Pops this flow's top page.
    public static var pop: Self { Self(.pop) }
    /// Pops pages until the topmost page of type `P` is on top.
    public static func pop<P: Page>(to type: P.Type) -> Self { Self(.popTo(pageName: P.name)) }
    /// Pops every page but the first.
    public static var popToRoot: Self { Self(.popToRoot) }
    /// Dismisses what this flow presents.
    public static var dismiss: Self { Self(.dismiss) }
    /// Selects tab `index` of this tabs flow.
    public static func select(tab index: Int) -> Self { Self(.select(tab: index)) }
    /// This flow navigates `step` after the current navigation completes (never re-entrantly).
    public static func forwardToCurrentFlow(withStep step: Step) -> Self { Self(.forwardToCurrentFlow(step)) }
    /// The parent flow navigates `step` after the current navigation; this flow stays.
    public static func forwardToParentFlow(withStep step: Step) -> Self { Self(.forwardToParentFlow(step)) }
    /// After the current navigation, `step` goes to the flow of the page then on top and up its
    /// responder chain, as a step without a source page would (e.g. a deep link kept during
    /// onboarding and delivered once onboarding is dismissed).
    public static func forwardToTopFlow(withStep step: Step) -> Self { Self(.forwardToTopFlow(step)) }
}
