import FlowCore

/// The app's window (single): the dashboard, with onboarding presented over it until the
/// session's ``DemoSession`` says it is onboarded. A deep link that arrives during onboarding is
/// kept and delivered after it.
public struct AppFlow: Flow {
    public static let name = "app"
    public static let container = ContainerKind.single

    /// A deep link that arrived before onboarding was complete.
    public var pendingDeepLink: DemoStep?

    /// A new app window.
    public init() {}

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        let onboarded = context.appData(DemoSession.self).onboarded
        switch step {
        case .dashboardIsRequired:
            let dashboard = FlowContributor<DemoStep>.show(
                DashboardFlow(), stepper: OneStepper(withSingleStep: .dashboardIsRequired))
            guard !onboarded else { return .one(dashboard) }
            return .multiple([
                dashboard, .present(OnboardingFlow(), stepper: OneStepper(withSingleStep: .loginIsRequired)),
            ])
        case .onboardingIsRequired:
            return onboarded
                ? .none : .one(.present(OnboardingFlow(), stepper: OneStepper(withSingleStep: .loginIsRequired)))
        case .onboardingIsComplete:
            context.updateAppData(DemoSession.self) { $0.onboarded = true }
            var contributors: [FlowContributor<DemoStep>] = [.dismiss]
            if let pendingDeepLink { contributors.append(.forwardToTopFlow(withStep: pendingDeepLink)) }
            pendingDeepLink = nil
            return .multiple(contributors)
        case .logoutIsRequired:
            context.updateAppData(DemoSession.self) { $0 = DemoSession() }
            return .one(.present(OnboardingFlow(), stepper: OneStepper(withSingleStep: .loginIsRequired)))
        case .movieIsPicked, .castIsPicked, .settingsAreRequired:
            // Only reaches the app when no flow below took it: a deep link during onboarding.
            guard !onboarded else { return .none }
            pendingDeepLink = step
            return .multiple([])
        default:
            return .none
        }
    }
}

/// Onboarding (stack): the login form, then the API key form; the key ends onboarding.
public struct OnboardingFlow: Flow {
    public static let name = "onboarding"
    public static let container = ContainerKind.stack

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        switch step {
        case .loginIsRequired: return .one(.push(LoginPage()))
        case .userIsLoggedIn(let name):
            context.updateAppData(DemoSession.self) { $0.userName = name }
            return .one(.push(APIKeyPage()))
        case .apiKeyIsFilledIn(let apiKey):
            context.updateAppData(DemoSession.self) { $0.apiKey = apiKey }
            return .end(forwardToParentFlowWithStep: .onboardingIsComplete)
        default: return .none
        }
    }
}

/// The dashboard (tabs): wishlist, watched, trending.
public struct DashboardFlow: Flow {
    public static let name = "dashboard"
    public static let container = ContainerKind.tabs

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        switch step {
        case .dashboardIsRequired:
            .multiple([
                .tab(WishlistFlow(), stepper: OneStepper(withSingleStep: .moviesAreRequired)),
                .tab(WatchedFlow(), stepper: OneStepper(withSingleStep: .moviesAreRequired)),
                .tab(TrendingFlow(), stepper: OneStepper(withSingleStep: .trendingsAreRequired)),
            ])
        case .logoutIsRequired: .triggerParentFlow(withStep: step)
        default: .none
        }
    }
}
