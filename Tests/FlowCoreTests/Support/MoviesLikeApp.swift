import FlowCore
import Synchronization

/// A demo-like app for the engine's tests: app/single, onboarding/stack, dashboard/tabs of
/// three stacks (trending embeds two flows), settings/split presented modally, an adapt.
enum TestStep: FlowStep {
    case dashboardIsRequired, onboardingIsRequired, onboardingIsComplete, logoutIsRequired
    case loginIsRequired
    case userIsLoggedIn(name: String)
    case apiKeyIsFilledIn(apiKey: String)
    case moviesAreRequired
    case movieIsPicked(withId: Int)
    case castIsPicked(withId: Int)
    case settingsAreRequired, settingsAreComplete, aboutIsRequired, unauthorized
    case trendingsAreRequired, castListAreRequired
    case alert(message: String)
    case noop, loop, twoForwards, refuseMe
    /// Adapted by the lists to `noop`, which no flow navigates.
    case adaptToNoop
}

struct AppFlow: Flow {
    static let name = "app"
    static let container = ContainerKind.single
    var onboarded = false

    mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
        switch step {
        case .dashboardIsRequired:
            let dashboard = FlowContributor<TestStep>.show(
                DashboardFlow(), stepper: OneStepper(withSingleStep: .dashboardIsRequired))
            guard !onboarded else { return .one(dashboard) }
            return .multiple([
                dashboard, .present(OnboardingFlow(), stepper: OneStepper(withSingleStep: .loginIsRequired)),
            ])
        case .onboardingIsComplete:
            onboarded = true
            return .one(.dismiss)
        case .logoutIsRequired:
            onboarded = false
            return .one(.present(OnboardingFlow(), stepper: OneStepper(withSingleStep: .loginIsRequired)))
        default:
            return .none
        }
    }
}

struct OnboardingFlow: Flow {
    static let name = "onboarding"
    static let container = ContainerKind.stack

    mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
        switch step {
        case .loginIsRequired: .one(.push(LoginPage()))
        case .userIsLoggedIn: .one(.push(APIKeyPage()))
        case .apiKeyIsFilledIn: .end(forwardToParentFlowWithStep: .onboardingIsComplete)
        default: .none
        }
    }
}

struct DashboardFlow: Flow {
    static let name = "dashboard"
    static let container = ContainerKind.tabs

    mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
        switch step {
        case .dashboardIsRequired:
            .multiple([
                .tab(MoviesFlow(list: .wishlist), stepper: OneStepper(withSingleStep: .moviesAreRequired)),
                .tab(MoviesFlow(list: .watched), stepper: OneStepper(withSingleStep: .moviesAreRequired)),
                .tab(TrendingFlow(), stepper: OneStepper(withSingleStep: .trendingsAreRequired)),
            ])
        case .logoutIsRequired: .triggerParentFlow(withStep: .logoutIsRequired)
        default: .none
        }
    }
}

/// The wishlist and watched stacks; the wishlist adapts every other about to `unauthorized`.
struct MoviesFlow: Flow {
    enum List: String, Codable { case wishlist, watched }
    static let name = "movies"
    static let container = ContainerKind.stack
    var list: List
    var aboutRequests = 0

    func adapt(_ step: TestStep, context: FlowContext) async -> StepAdaptation<TestStep> {
        switch step {
        case .aboutIsRequired:
            return aboutRequests.isMultiple(of: 2) ? .step(step) : .step(.unauthorized)
        case .refuseMe:
            return .refuse
        case .adaptToNoop:
            return .step(.noop)
        default:
            return .step(step)
        }
    }

    mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
        switch step {
        case .moviesAreRequired: return .one(.push(ListPage(list: list.rawValue)))
        case .movieIsPicked(let id): return .one(.push(MoviePage(id: id)))
        case .castIsPicked(let id): return .one(.push(CastPage(id: id), allowStepWhenDismissed: true))
        case .settingsAreRequired:
            return .one(.present(SettingsFlow(), stepper: OneStepper(withSingleStep: .settingsAreRequired)))
        case .aboutIsRequired:
            aboutRequests += 1
            return .one(.present(AboutPage()))
        case .unauthorized:
            aboutRequests += 1
            return .one(.present(AlertPage(message: "Unauthorized")))
        case .logoutIsRequired: return .triggerParentFlow(withStep: .logoutIsRequired)
        case .loop: return .one(.forwardToCurrentFlow(withStep: .loop))
        case .twoForwards:
            return .multiple([
                .push(MoviePage(id: 1), stepper: OneStepper(withSingleStep: .castIsPicked(withId: 2))),
                .forwardToCurrentFlow(withStep: .movieIsPicked(withId: 3)),
            ])
        default: return .none
        }
    }
}

struct TrendingFlow: Flow {
    static let name = "trending"
    static let container = ContainerKind.stack

    mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
        switch step {
        case .trendingsAreRequired:
            .multiple([
                .push(TrendingPage()),
                .embed(EmbeddedListFlow(kind: "movies"), stepper: OneStepper(withSingleStep: .moviesAreRequired)),
                .embed(EmbeddedListFlow(kind: "cast"), stepper: OneStepper(withSingleStep: .castListAreRequired)),
            ])
        case .movieIsPicked(let id): .one(.push(MoviePage(id: id)))
        default: .none
        }
    }
}

struct EmbeddedListFlow: Flow {
    static let name = "embedded-list"
    static let container = ContainerKind.single
    var kind: String

    mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
        switch step {
        case .moviesAreRequired, .castListAreRequired: .one(.push(ListPage(list: "trending-\(kind)")))
        case .movieIsPicked: .triggerParentFlow(withStep: step)
        default: .none
        }
    }
}

struct SettingsFlow: Flow {
    static let name = "settings"
    static let container = ContainerKind.split

    mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
        switch step {
        case .settingsAreRequired:
            .multiple([.set([SettingsPage()]), .present(AlertPage(message: "Demo of multiple Flow Contributor"))])
        case .loginIsRequired: .one(.push(SettingsDetailPage(section: "login")))
        case .aboutIsRequired: .one(.push(SettingsDetailPage(section: "about")))
        case .settingsAreComplete: .end(forwardToParentFlowWithStep: .noop)
        default: .none
        }
    }
}

struct LoginPage: Page {
    static let name = "login"
    var path: PagePath { "/onboarding/login" }
}
struct APIKeyPage: Page {
    static let name = "apikey"
    var path: PagePath { "/onboarding/apikey" }
}
struct ListPage: Page {
    static let name = "list"
    var list: String
    var path: PagePath { "/\(list)" }
}
struct MoviePage: Page {
    static let name = "movie"
    var id: Int
    var path: PagePath { "/movies/\(id)" }
}
struct CastPage: Page {
    static let name = "cast"
    var id: Int
    var path: PagePath { "/cast/\(id)" }
}
struct TrendingPage: Page {
    static let name = "trending"
    var path: PagePath { "/trending" }
}
struct SettingsPage: Page {
    static let name = "settings"
    var path: PagePath { "/settings" }
}
struct SettingsDetailPage: Page {
    static let name = "settings-detail"
    var section: String
    var path: PagePath { "/settings/\(section)" }
}
struct AboutPage: Page {
    static let name = "about"
    var path: PagePath { "/about" }
}
struct AlertPage: Page {
    static let name = "alert"
    static let allowsStepsWhenDismissed = true
    var message: String
    var path: PagePath { "/alert" }
}

enum MoviesLikeApp {
    static let flows: [any Flow<TestStep>.Type] = [
        AppFlow.self, OnboardingFlow.self, DashboardFlow.self, MoviesFlow.self, TrendingFlow.self,
        EmbeddedListFlow.self,
        SettingsFlow.self,
    ]
    static let pages: [any Page.Type] = [
        LoginPage.self, APIKeyPage.self, ListPage.self, MoviePage.self, CastPage.self, TrendingPage.self,
        SettingsPage.self,
        SettingsDetailPage.self, AboutPage.self, AlertPage.self,
    ]

    /// The app, starting onboarded or not.
    static func app(onboarded: Bool = true) throws -> FlowApp<TestStep> {
        try FlowApp(
            root: AppFlow(onboarded: onboarded), stepper: OneStepper(withSingleStep: .dashboardIsRequired),
            flows: flows, pages: pages)
    }
}

/// Records what observers see.
final class RecordingObserver: NavigationObserver, @unchecked Sendable {
    // @unchecked: tests use it from one task at a time; the lock guards the log anyway.
    private let lock = NSLockLike()
    private var log: [String] = []

    var events: [String] { lock.withLock { log } }

    func willNavigate(flow: FlowReference, step: TestStep) { lock.withLock { log.append("will \(flow) \(step)") } }
    func didNavigate(flow: FlowReference, step: TestStep) { lock.withLock { log.append("did \(flow) \(step)") } }
}

/// A tiny lock for the recording observer.
final class NSLockLike: Sendable {
    private let mutex = Mutex(())
    func withLock<R>(_ body: () -> R) -> R { mutex.withLock { _ in body() } }
}
