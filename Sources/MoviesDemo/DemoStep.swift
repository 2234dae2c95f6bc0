import FlowCore

/// The steps of RxFlow's demo app (Docs/CONTRACT.md §8).
public enum DemoStep: FlowStep {
    /// Log out: onboarding again.
    case logoutIsRequired
    /// Show the dashboard (the app's start).
    case dashboardIsRequired
    /// Show a message.
    case alert(message: String)
    /// About was refused: show the unauthorized alert.
    case unauthorized
    /// Show the login form.
    case loginIsRequired
    /// The login form was sent.
    case userIsLoggedIn(name: String)
    /// Show the API key form.
    case apiKeyIsRequired
    /// The API key form was sent.
    case apiKeyIsFilledIn(apiKey: String)
    /// Show onboarding.
    case onboardingIsRequired
    /// Onboarding is done: dismiss it.
    case onboardingIsComplete
    /// Show a tab's movies.
    case moviesAreRequired
    /// Open a movie.
    case movieIsPicked(withId: Int)
    /// Open a cast member.
    case castIsPicked(withId: Int)
    /// Open settings.
    case settingsAreRequired
    /// Close settings.
    case settingsAreComplete
    /// Open about (adapted to `unauthorized` every other time).
    case aboutIsRequired
    /// Close about.
    case aboutIsComplete
    /// Show the trending tab.
    case trendingsAreRequired
    /// Show the cast list.
    case castListAreRequired
}
