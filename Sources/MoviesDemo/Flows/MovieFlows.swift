import FlowCore

/// Pushes a movie or a cast member's page when the catalog has it (an unknown id never enters
/// the tree).
func moviePages(for step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep>? {
    let catalog = context[MovieCatalog.self] ?? .demo
    switch step {
    case .movieIsPicked(let id):
        return catalog.movie(id) == nil ? FlowContributors.none : .one(.push(MoviePage(id: id)))
    case .castIsPicked(let id): return catalog.member(id) == nil ? FlowContributors.none : .one(.push(CastPage(id: id)))
    default: return nil
    }
}

/// The wishlist tab (stack): its movies, their cast, settings (presented), about (presented, but
/// adapted to "unauthorized" every other time), logout.
public struct WishlistFlow: Flow {
    public static let name = "wishlist"
    public static let container = ContainerKind.stack

    /// How many times about was asked for.
    public var aboutRequests = 0

    public func adapt(_ step: DemoStep, context: FlowContext) async -> StepAdaptation<DemoStep> {
        guard step == .aboutIsRequired else { return .step(step) }
        return aboutRequests.isMultiple(of: 2) ? .step(.aboutIsRequired) : .step(.unauthorized)
    }

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        if let pages = moviePages(for: step, context: context) { return pages }
        switch step {
        case .moviesAreRequired: return .one(.push(WishlistPage()))
        case .settingsAreRequired:
            return .one(.present(SettingsFlow(), stepper: OneStepper(withSingleStep: .settingsAreRequired)))
        case .aboutIsRequired:
            aboutRequests += 1
            return .one(.present(AboutPage()))
        case .unauthorized:
            aboutRequests += 1
            return .one(
                .present(AlertPage(message: "You are not authorized to see the about page right now. Try again.")))
        case .aboutIsComplete: return .one(.dismiss)
        case .logoutIsRequired: return .triggerParentFlow(withStep: step)
        default: return .none
        }
    }
}

/// The watched tab (stack): its movies and their cast.
public struct WatchedFlow: Flow {
    public static let name = "watched"
    public static let container = ContainerKind.stack

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        if let pages = moviePages(for: step, context: context) { return pages }
        switch step {
        case .moviesAreRequired: return .one(.push(WatchedPage()))
        case .logoutIsRequired: return .triggerParentFlow(withStep: step)
        default: return .none
        }
    }
}

/// The trending tab (stack): its page embeds two flows side by side, trending movies and the
/// cast list; what they pick is pushed here.
public struct TrendingFlow: Flow {
    public static let name = "trending"
    public static let container = ContainerKind.stack

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        if let pages = moviePages(for: step, context: context) { return pages }
        switch step {
        case .trendingsAreRequired:
            return .multiple([
                .push(TrendingPage()),
                .embed(TrendingMoviesFlow(), stepper: OneStepper(withSingleStep: .moviesAreRequired)),
                .embed(CastListFlow(), stepper: OneStepper(withSingleStep: .castListAreRequired)),
            ])
        case .logoutIsRequired: return .triggerParentFlow(withStep: step)
        default: return .none
        }
    }
}

/// Trending movies, embedded in the trending page.
public struct TrendingMoviesFlow: Flow {
    public static let name = "trending-movies"
    public static let container = ContainerKind.single

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        switch step {
        case .moviesAreRequired: .one(.push(TrendingMoviesPage()))
        case .movieIsPicked: .triggerParentFlow(withStep: step)
        default: .none
        }
    }
}

/// The cast list, embedded in the trending page.
public struct CastListFlow: Flow {
    public static let name = "cast-list"
    public static let container = ContainerKind.single

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        switch step {
        case .castListAreRequired: .one(.push(CastListPage()))
        case .castIsPicked: .triggerParentFlow(withStep: step)
        default: .none
        }
    }
}

/// Settings (split, presented modally): a master list and detail pages; the login and API key
/// forms save the session's preferences (``DemoSession``) and go back to the list; Done ends it.
public struct SettingsFlow: Flow {
    public static let name = "settings"
    public static let container = ContainerKind.split

    public mutating func navigate(to step: DemoStep, context: FlowContext) -> FlowContributors<DemoStep> {
        switch step {
        case .settingsAreRequired: return .one(.set([SettingsPage()]))
        case .loginIsRequired: return .one(.push(SettingsDetailPage(section: .login)))
        case .apiKeyIsRequired: return .one(.push(SettingsDetailPage(section: .apiKey)))
        case .aboutIsRequired: return .one(.push(SettingsDetailPage(section: .about)))
        case .userIsLoggedIn(let name):
            context.updateAppData(DemoSession.self) { $0.userName = name }
            return .one(.popToRoot)
        case .apiKeyIsFilledIn(let apiKey):
            context.updateAppData(DemoSession.self) { $0.apiKey = apiKey }
            return .one(.popToRoot)
        case .settingsAreComplete: return .end(forwardToParentFlowWithStep: .settingsAreComplete)
        default: return .none
        }
    }
}
