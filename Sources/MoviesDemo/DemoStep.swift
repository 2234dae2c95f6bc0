import FlowCore

/// The steps of RxFlow's demo app (CONTRACT §8).
public enum DemoStep: FlowStep {
    case logoutIsRequired
    case dashboardIsRequired
    case alert(message: String)
    case unauthorized
    case loginIsRequired
    case userIsLoggedIn(name: String)
    case apiKeyIsRequired
    case apiKeyIsFilledIn(apiKey: String)
    case onboardingIsRequired
    case onboardingIsComplete
    case moviesAreRequired
    case movieIsPicked(withId: Int)
    case castIsPicked(withId: Int)
    case settingsAreRequired
    case settingsAreComplete
    case aboutIsRequired
    case aboutIsComplete
    case trendingsAreRequired
    case castListAreRequired
}
