import FlowCore
import FlowWeb
import MoviesDemo
import Testing

/// The demo's flows without HTTP (Docs/CONTRACT.md §8).
@Suite("Movies demo flows")
struct DemoFlowTests {
    private func start() async throws -> (Coordinator<DemoStep>, NavigationTree) {
        let app = try MoviesDemo.webApp()
        let coordinator = Coordinator(app: app.flows, context: app.context)
        return (coordinator, try await coordinator.start().tree)
    }

    private func onboard(_ coordinator: Coordinator<DemoStep>, _ tree: inout NavigationTree) async throws {
        _ = try await coordinator.apply(.userIsLoggedIn(name: "Ada"), from: tree.top?.id, to: &tree)
        _ = try await coordinator.apply(.apiKeyIsFilledIn(apiKey: "k"), from: tree.top?.id, to: &tree)
    }

    @Test("a new session shows onboarding over the dashboard; onboarding dismisses to the wishlist")
    func onboarding() async throws {
        var (coordinator, tree) = try await start()
        #expect(tree.top?.url == "/onboarding/login")
        try await onboard(coordinator, &tree)
        #expect(tree.top?.url == "/wishlist")
        #expect(tree.flows.map(\.flow.name).contains("onboarding") == false)
        #expect(
            tree.flows.map(\.flow.name) == [
                "app", "dashboard", "wishlist", "watched", "trending", "trending-movies", "cast-list",
            ])
    }

    @Test("a deep link during onboarding is kept and navigated right after it")
    func deepLinkKept() async throws {
        var (coordinator, tree) = try await start()
        let kept = try await coordinator.apply(.movieIsPicked(withId: 3), to: &tree)
        #expect(kept.outcome == .unchanged)
        #expect(tree.top?.url == "/onboarding/login")
        try await onboard(coordinator, &tree)
        #expect(tree.top?.url == "/movies/3")
    }

    @Test("about alternates with the unauthorized alert; settings opens with its alert; logout shows onboarding again")
    func wishlist() async throws {
        var (coordinator, tree) = try await start()
        try await onboard(coordinator, &tree)
        let wishlist = try #require(tree.top?.id)
        let first = try await coordinator.apply(.aboutIsRequired, from: wishlist, to: &tree)
        #expect(first.outcome == .navigated && tree.top?.url == "/about")
        _ = try coordinator.visit(wishlist, in: &tree)
        let second = try await coordinator.apply(.aboutIsRequired, from: wishlist, to: &tree)
        #expect(second.outcome == .adapted && second.adaptedStep == .unauthorized && tree.top?.url == "/alert")
        _ = try coordinator.visit(wishlist, in: &tree)
        _ = try await coordinator.apply(.settingsAreRequired, from: wishlist, to: &tree)
        #expect(tree.top?.url == "/alert")
        let settings = try #require(tree.pages(at: "/settings").first?.id)
        _ = try coordinator.visit(settings, in: &tree)
        _ = try await coordinator.apply(.loginIsRequired, from: settings, to: &tree)
        #expect(tree.top?.url == "/settings/login")
        _ = try await coordinator.apply(.settingsAreComplete, from: settings, to: &tree)
        #expect(tree.top?.url == "/wishlist" && tree.flows.contains { $0.flow.name == "settings" } == false)
        _ = try await coordinator.apply(.logoutIsRequired, from: wishlist, to: &tree)
        #expect(tree.top?.url == "/onboarding/login")
    }

    @Test("onboarding and settings keep the preferences in the session's app data; logout clears them")
    func preferences() async throws {
        var (coordinator, tree) = try await start()
        #expect(tree.appData.as(DemoSession.self) == DemoSession())
        try await onboard(coordinator, &tree)
        var expected = DemoSession()
        expected.onboarded = true
        expected.userName = "Ada"
        expected.apiKey = "k"
        #expect(tree.appData.as(DemoSession.self) == expected)
        let wishlist = try #require(tree.top?.id)
        _ = try await coordinator.apply(.settingsAreRequired, from: wishlist, to: &tree)
        let settings = try #require(tree.pages(at: "/settings").first?.id)
        _ = try await coordinator.apply(.loginIsRequired, from: settings, to: &tree)
        _ = try await coordinator.apply(.userIsLoggedIn(name: "Grace"), from: tree.top?.id, to: &tree)
        #expect(tree.top?.url == "/settings" && tree.appData.as(DemoSession.self)?.userName == "Grace")
        _ = try await coordinator.apply(.apiKeyIsRequired, from: settings, to: &tree)
        _ = try await coordinator.apply(.apiKeyIsFilledIn(apiKey: "secret-1234"), from: tree.top?.id, to: &tree)
        #expect(tree.top?.url == "/settings" && tree.appData.as(DemoSession.self)?.maskedAPIKey == "•••••••1234")
        _ = try await coordinator.apply(.settingsAreComplete, from: settings, to: &tree)
        _ = try await coordinator.apply(.logoutIsRequired, from: wishlist, to: &tree)
        #expect(tree.top?.url == "/onboarding/login" && tree.appData.as(DemoSession.self) == DemoSession())
    }

    @Test("an unknown movie or cast id never enters the tree")
    func unknownIDs() async throws {
        var (coordinator, tree) = try await start()
        try await onboard(coordinator, &tree)
        let before = tree
        let movie = try await coordinator.apply(.movieIsPicked(withId: 999_999), from: tree.top?.id, to: &tree)
        #expect(movie.outcome == .ignored && tree == before)
        let cast = try await coordinator.apply(.castIsPicked(withId: 999_999), from: tree.top?.id, to: &tree)
        #expect(cast.outcome == .ignored && tree == before)
    }

    @Test("trending embeds two flows whose picks push onto the trending stack")
    func trending() async throws {
        var (coordinator, tree) = try await start()
        try await onboard(coordinator, &tree)
        let list = try #require(tree.pages(at: "/trending/movies").first?.id)
        _ = try await coordinator.apply(.movieIsPicked(withId: 11), from: list, to: &tree)
        #expect(tree.top?.url == "/movies/11")
        let top = try #require(tree.top?.id)
        let owner = try #require(tree.owner(ofPage: top))
        #expect(tree.flow(owner)?.flow.name == "trending")
    }

    @Test("the data set has at least 12 movies and 24 cast members, each cast member in a movie")
    func dataSet() {
        let catalog = MovieCatalog.demo
        #expect(catalog.movies.count >= 12 && catalog.cast.count >= 24)
        #expect(catalog.cast.allSatisfy { !catalog.movies(of: $0.id).isEmpty })
        #expect(catalog.movies.allSatisfy { $0.cast.allSatisfy { catalog.member($0) != nil } })
    }
}
