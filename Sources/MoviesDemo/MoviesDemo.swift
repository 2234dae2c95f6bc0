import FlowCore
import FlowWeb

/// RxFlow's demo app as web flows (Docs/CONTRACT.md §8): onboarding, a dashboard of three tabs, movies
/// and cast, settings in a modal split, about adapted to "unauthorized" every other time.
public enum MoviesDemo {
    /// Every flow type of the demo.
    public static let flows: [any Flow<DemoStep>.Type] = [
        AppFlow.self, OnboardingFlow.self, DashboardFlow.self, WishlistFlow.self, WatchedFlow.self, TrendingFlow.self,
        TrendingMoviesFlow.self, CastListFlow.self, SettingsFlow.self,
    ]

    /// Every page type of the demo.
    public static let pages: [any WebPage.Type] = [
        LoginPage.self, APIKeyPage.self, WishlistPage.self, WatchedPage.self, MoviePage.self, CastPage.self,
        TrendingPage.self,
        TrendingMoviesPage.self, CastListPage.self, SettingsPage.self, SettingsDetailPage.self, AboutPage.self,
        AlertPage.self,
    ]

    /// The demo as a web app, with `catalog` as its data.
    public static func webApp(catalog: MovieCatalog = .demo) throws -> WebApp<DemoStep> {
        var context = FlowContext()
        context.register(catalog)
        let flowApp = try FlowApp(
            root: AppFlow(), stepper: OneStepper(withSingleStep: DemoStep.dashboardIsRequired), flows: flows,
            pages: pages,
            appData: DemoSession.self)
        return try WebApp(
            flows: flowApp, pages: pages,
            deepLinks: [
                DeepLinkRoute("/movies/{id:int}") { values, context in
                    guard let id = values.int("id"), (context[MovieCatalog.self] ?? .demo).movie(id) != nil else {
                        return nil
                    }
                    return .movieIsPicked(withId: id)
                },
                DeepLinkRoute("/cast/{id:int}") { values, context in
                    guard let id = values.int("id"), (context[MovieCatalog.self] ?? .demo).member(id) != nil else {
                        return nil
                    }
                    return .castIsPicked(withId: id)
                },
                DeepLinkRoute("/settings") { _, _ in .settingsAreRequired },
            ],
            context: context, siteName: "FlowServer Movies")
    }
}
