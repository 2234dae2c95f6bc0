import FlowCore
import FlowTesting
import FlowWeb
import Foundation
import MoviesDemo
import Testing

/// The demo's flows without HTTP (Docs/CONTRACT.md §8), with FlowTesting's `FlowTestStore`: every
/// step's outcome and tree are stated, and the store checks that each tree is valid, survives
/// encoding and is rebuilt by replaying the history.
@Suite("Movies demo flows")
struct DemoFlowTests {
    /// The dashboard as a new session has it under onboarding (its tabs, trending's embedded lists).
    static let dashboard = """
        app#1 single
          dashboard#2 tabs selected=0
            wishlist#4 stack
              wishlist#8 /wishlist
            watched#5 stack
              watched#9 /watched
            trending#6 stack
              trending#10 /trending
                embedded trending-movies#11 single
                  trending-movies#13 /trending/movies
                embedded cast-list#12 single
                  cast-list#14 /trending/cast
        """

    /// The dashboard with the wishlist on top, as onboarding leaves it.
    static let onboarded = dashboard.replacingOccurrences(of: "wishlist#8 /wishlist", with: "wishlist#8 /wishlist *")

    private func start() async throws -> FlowTestStore<DemoStep> {
        let app = try MoviesDemo.webApp()
        return try await FlowTestStore(app: app.flows, context: app.context)
    }

    /// Onboards as Ada, stating only which page is then on top.
    private func onboard(_ store: FlowTestStore<DemoStep>, top: String = "wishlist#8 /wishlist *") async throws {
        let exhaustivity = store.exhaustivity
        store.exhaustivity = .off
        defer { store.exhaustivity = exhaustivity }
        try await store.send(.userIsLoggedIn(name: "Ada"), from: store.top, tree: "/onboarding/apikey *")
        try await store.send(.apiKeyIsFilledIn(apiKey: "k"), from: store.top, tree: top)
    }

    @Test("a new session shows onboarding over the dashboard; onboarding dismisses to the wishlist")
    func onboarding() async throws {
        let store = try await start()
        #expect(
            store.tree.outline == Self.dashboard + "\n  presented onboarding#3 stack\n    login#7 /onboarding/login *")
        try await store.send(
            .userIsLoggedIn(name: "Ada"), from: store.top, outcome: .navigated, actions: ["push apikey#15"],
            tree: Self.dashboard + """

                  presented onboarding#3 stack
                    login#7 /onboarding/login
                    apikey#15 /onboarding/apikey *
                """)
        try await store.send(
            .apiKeyIsFilledIn(apiKey: "k"), from: store.top, outcome: .navigated,
            actions: ["dismiss onboarding#3", "endFlow onboarding#3"], tree: Self.onboarded)
    }

    @Test("a deep link during onboarding is kept and navigated right after it")
    func deepLinkKept() async throws {
        let store = try await start()
        store.exhaustivity = .off
        try await store.send(.movieIsPicked(withId: 3), outcome: .unchanged, tree: "/onboarding/login *")
        try await onboard(store, top: "/movies/3 *")
    }

    @Test("about alternates with the unauthorized alert; settings opens on its list; logout shows onboarding again")
    func wishlist() async throws {
        let store = try await start()
        store.exhaustivity = .off
        try await onboard(store)
        let wishlist = try #require(store.top)
        try await store.send(.aboutIsRequired, from: wishlist, outcome: .navigated, tree: "/about *")
        try await store.visit(wishlist, tree: "/wishlist *")
        let second = try await store.send(.aboutIsRequired, from: wishlist, outcome: .adapted, tree: "/alert *")
        #expect(second.adaptedStep == .unauthorized)
        try await store.visit(wishlist, tree: "/wishlist *")
        try await store.send(.settingsAreRequired, from: wishlist, tree: "/settings *")
        let settings = try #require(store.page(at: "/settings"))
        try await store.send(.loginIsRequired, from: settings, tree: "/settings\n/settings/login *")
        try await store.send(.settingsAreComplete, from: settings, tree: "/wishlist *")
        #expect(!store.tree.flows.contains { $0.flow.name == "settings" })
        try await store.send(.logoutIsRequired, from: wishlist, tree: "presented onboarding\n/onboarding/login *")
    }

    @Test("onboarding and settings keep the preferences in the session's app data; logout clears them")
    func preferences() async throws {
        let store = try await start()
        store.exhaustivity = .off
        #expect(store.appData(DemoSession.self) == DemoSession())
        try await onboard(store)
        var expected = DemoSession()
        expected.onboarded = true
        expected.userName = "Ada"
        expected.apiKey = "k"
        #expect(store.appData(DemoSession.self) == expected)
        let wishlist = try #require(store.top)
        try await store.send(.settingsAreRequired, from: wishlist)
        let settings = try #require(store.page(at: "/settings"))
        try await store.send(.loginIsRequired, from: settings, tree: "/settings/login *")
        try await store.send(.userIsLoggedIn(name: "Grace"), from: store.top, tree: "/settings *")
        #expect(store.appData(DemoSession.self)?.userName == "Grace")
        try await store.send(.apiKeyIsRequired, from: settings)
        try await store.send(.apiKeyIsFilledIn(apiKey: "secret-1234"), from: store.top, tree: "/settings *")
        #expect(store.appData(DemoSession.self)?.maskedAPIKey == "•••••••1234")
        try await store.send(.settingsAreComplete, from: settings, tree: "/wishlist *")
        try await store.send(.logoutIsRequired, from: wishlist, tree: "/onboarding/login *")
        #expect(store.appData(DemoSession.self) == DemoSession())
    }

    @Test("an unknown movie or cast id never enters the tree")
    func unknownIDs() async throws {
        let store = try await start()
        try await onboard(store)
        try await store.send(.movieIsPicked(withId: 999_999), from: store.top, outcome: .ignored, tree: Self.onboarded)
        try await store.send(.castIsPicked(withId: 999_999), from: store.top, outcome: .ignored, tree: Self.onboarded)
    }

    @Test("trending embeds two flows whose picks push onto the trending stack")
    func trending() async throws {
        let store = try await start()
        store.exhaustivity = .off
        try await onboard(store)
        let list = try #require(store.page(at: "/trending/movies"))
        try await store.send(
            .movieIsPicked(withId: 11), from: list, outcome: .navigated,
            tree: """
                trending#6 stack
                  trending#10 /trending
                    embedded trending-movies#11 single
                    embedded cast-list#12 single
                  /movies/11 *
                """)
        let top = try #require(store.top)
        let owner = try #require(store.tree.owner(ofPage: top))
        #expect(store.tree.flow(owner)?.flow.name == "trending")
    }

    @Test("the data set has at least 12 movies and 24 cast members, each cast member in a movie")
    func dataSet() {
        let catalog = MovieCatalog.demo
        #expect(catalog.movies.count >= 12 && catalog.cast.count >= 24)
        #expect(catalog.cast.allSatisfy { !catalog.movies(of: $0.id).isEmpty })
        #expect(catalog.movies.allSatisfy { $0.cast.allSatisfy { catalog.member($0) != nil } })
    }
}
