import FlowCore
import FlowTesting
import Testing

@testable import MoviesDemo

/// FlowTesting's `FlowTestStore` itself, on the demo: what each exhaustivity asks of a test, and
/// services changed in the middle of one.
@Suite("FlowTestStore")
struct FlowTestStoreTests {
    private func onboardedStore() async throws -> FlowTestStore<DemoStep> {
        let app = try MoviesDemo.webApp()
        let store = try await FlowTestStore(app: app.flows, context: app.context)
        store.exhaustivity = .off
        try await store.send(.userIsLoggedIn(name: "Ada"), from: store.top)
        try await store.send(.apiKeyIsFilledIn(apiKey: "k"), from: store.top)
        return store
    }

    @Test("an exhaustive store fails a step that does not state the whole tree")
    func exhaustiveNeedsTheTree() async throws {
        let store = try await onboardedStore()
        store.exhaustivity = .on
        try await withKnownIssue {
            try await store.send(.aboutIsRequired, from: store.top)
        } matching: { issue in
            issue.description.contains("an exhaustive store needs the whole tree")
        }
        try await withKnownIssue {
            try await store.send(.aboutIsRequired, from: store.page(at: "/wishlist"), tree: "/about *")
        } matching: { issue in
            issue.description.contains("the tree differs")
        }
    }

    @Test("a non-exhaustive store checks the lines it is given, in order, within the outline's lines")
    func nonExhaustiveChecksWhatIsGiven() async throws {
        let store = try await onboardedStore()
        let wishlist = try #require(store.top)
        try await store.send(.movieIsPicked(withId: 3), from: wishlist, tree: "wishlist#4 stack\n/movies/3 *")
        try await withKnownIssue {
            // Right lines, wrong order: the movie is pushed above the wishlist, not below it.
            try await store.visit(wishlist, tree: "/wishlist *\nwishlist#4 stack")
        } matching: { issue in
            issue.description.contains("no line with \"wishlist#4 stack\"")
        }
    }

    /// The demo's catalog with one more film, 777.
    private static let catalogWithMovie777 = MovieCatalog(
        movies: MovieCatalog.demo.movies + [
            .init(id: 777, title: "A Film Added Mid-Test", year: 2026, synopsis: "", cast: [])
        ],
        cast: MovieCatalog.demo.cast, wishlist: MovieCatalog.demo.wishlist, watched: MovieCatalog.demo.watched)

    @Test("services changed during a test are what the next steps use")
    func servicesChangeDuringATest() async throws {
        let store = try await onboardedStore()
        let wishlist = try #require(store.top)
        try await store.send(.movieIsPicked(withId: 3), from: wishlist, outcome: .navigated, tree: "/movies/3 *")
        store.context.register(Self.catalogWithMovie777)
        try await store.send(.movieIsPicked(withId: 777), from: wishlist, outcome: .navigated, tree: "/movies/777 *")
    }

    @Test("a replay uses the services as they are now: a step whose outcome they changed fails the store's check")
    func replayUsesCurrentServices() async throws {
        let store = try await onboardedStore()
        let wishlist = try #require(store.top)
        try await store.send(.movieIsPicked(withId: 777), from: wishlist, outcome: .ignored, tree: "/wishlist *")
        store.context.register(Self.catalogWithMovie777)
        // The ignored pick above now replays as a push: the history no longer rebuilds the tree.
        try await withKnownIssue {
            try await store.visit(wishlist, tree: "/wishlist *")
        } matching: { issue in
            issue.description.contains("replaying the history gives another tree")
        }
    }
}
