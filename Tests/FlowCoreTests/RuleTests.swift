import FlowCore
import FlowTesting
import Foundation
import Testing

/// The rules of the FlowCore issue, one named test each (rule 12 and 13 are also checked by
/// FlowTestStore after every step of every test).
@Suite("Navigation rules")
struct RuleTests {
    @Test("rule 1: adapt runs before navigate for every step, whatever its source, and may replace or refuse it")
    func adaptBeforeNavigate() async throws {
        let store = try await startedStore()
        let first = try await store.send(
            .aboutIsRequired, from: 6, outcome: .navigated, actions: ["present about#13"],
            tree: """
                app#1 single
                  dashboard#2 tabs selected=0
                    movies#3 stack
                      list#6 /wishlist
                      presented about#13 /about *
                    movies#4 stack
                      list#7 /watched
                    trending#5 stack
                      trending#8 /trending
                        embedded embedded-list#9 single
                          list#11 /trending-movies
                        embedded embedded-list#10 single
                          list#12 /trending-cast
                """)
        #expect(first.steps.map(\.adaptation) == [.step(.aboutIsRequired)])
        try await store.visit(6, actions: ["dismiss about#13"], tree: startedTree)
        // The second request is adapted to `unauthorized`: an alert instead of the about page.
        let second = try await store.send(
            .aboutIsRequired, from: 6, outcome: .adapted, actions: ["present alert#14"],
            tree: """
                app#1 single
                  dashboard#2 tabs selected=0
                    movies#3 stack
                      list#6 /wishlist
                      presented alert#14 /alert *
                    movies#4 stack
                      list#7 /watched
                    trending#5 stack
                      trending#8 /trending
                        embedded embedded-list#9 single
                          list#11 /trending-movies
                        embedded embedded-list#10 single
                          list#12 /trending-cast
                """)
        #expect(second.adaptedStep == .unauthorized)
        // Without `from` (a deep link), the top flow's adapt runs too: third request, not adapted.
        try await store.visit(6, tree: startedTree)
        let third = try await store.send(
            .aboutIsRequired, outcome: .navigated,
            tree: """
                app#1 single
                  dashboard#2 tabs selected=0
                    movies#3 stack
                      list#6 /wishlist
                      presented about#15 /about *
                    movies#4 stack
                      list#7 /watched
                    trending#5 stack
                      trending#8 /trending
                        embedded embedded-list#9 single
                          list#11 /trending-movies
                        embedded embedded-list#10 single
                          list#12 /trending-cast
                """)
        #expect(third.steps.first?.flowName == "movies")
        try await store.visit(6, tree: startedTree)
        try await store.send(.refuseMe, from: 6, outcome: .rejected, actions: [], tree: startedTree)
        // Adapted to a step no flow then navigates: still recorded as adapted, with both steps,
        // from a page and up the responder chain alike.
        for from: NodeID? in [6, nil] {
            let unanswered = try await store.send(
                .adaptToNoop, from: from, outcome: .adapted, actions: [], tree: startedTree)
            #expect(unanswered.adaptedStep == .noop)
        }
    }

    @Test("rule 2: a step from a page no longer in the tree is ignored; visiting pops, selects tabs and dismisses")
    func stalePagesAndVisits() async throws {
        let store = try await startedStore()
        try await store.send(
            .movieIsPicked(withId: 42), from: 6, actions: ["push movie#13"],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      movie#13 /movies/42 *"))
        try await store.visit(6, outcome: .navigated, actions: ["pop movie#13"], tree: startedTree)
        try await store.send(.castIsPicked(withId: 7), from: 13, outcome: .ignored, actions: [], tree: startedTree)
        // A step from a hidden tab's page selects that tab first, then applies.
        try await store.send(
            .movieIsPicked(withId: 5), from: 7, actions: ["select movies#4", "push movie#14"],
            tree: """
                app#1 single
                  dashboard#2 tabs selected=1
                    movies#3 stack
                      list#6 /wishlist
                    movies#4 stack
                      list#7 /watched
                      movie#14 /movies/5 *
                    trending#5 stack
                      trending#8 /trending
                        embedded embedded-list#9 single
                          list#11 /trending-movies
                        embedded embedded-list#10 single
                          list#12 /trending-cast
                """)
        // Visiting a page under a presented flow dismisses the flow (which ends with its pages).
        try await store.send(
            .settingsAreRequired, from: 14,
            tree: """
                app#1 single
                  dashboard#2 tabs selected=1
                    movies#3 stack
                      list#6 /wishlist
                    movies#4 stack
                      list#7 /watched
                      movie#14 /movies/5
                      presented settings#15 split
                        settings#16 /settings
                        presented alert#17 /alert *
                    trending#5 stack
                      trending#8 /trending
                        embedded embedded-list#9 single
                          list#11 /trending-movies
                        embedded embedded-list#10 single
                          list#12 /trending-cast
                """)
        try await store.visit(
            6, actions: ["select movies#3"],
            tree: """
                app#1 single
                  dashboard#2 tabs selected=0
                    movies#3 stack
                      list#6 /wishlist *
                    movies#4 stack
                      list#7 /watched
                      movie#14 /movies/5
                      presented settings#15 split
                        settings#16 /settings
                        presented alert#17 /alert
                    trending#5 stack
                      trending#8 /trending
                        embedded embedded-list#9 single
                          list#11 /trending-movies
                        embedded embedded-list#10 single
                          list#12 /trending-cast
                """)
        try await store.visit(
            7, actions: ["select movies#4", "dismiss settings#15", "endFlow settings#15", "pop movie#14"],
            tree:
                startedTree
                .replacingOccurrences(of: "selected=0", with: "selected=1")
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist")
                .replacingOccurrences(of: "list#7 /watched", with: "list#7 /watched *"))
    }

    @Test("rule 2: a page that allows steps after dismissal still reaches its flow")
    func allowStepWhenDismissed() async throws {
        let store = try await startedStore()
        try await store.send(
            .castIsPicked(withId: 3), from: 6, actions: ["push cast#13"],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      cast#13 /cast/3 *"))
        try await store.visit(6, actions: ["pop cast#13"], tree: startedTree)
        #expect(store.tree.dismissedPages == [DismissedPage(node: 13, page: "cast", flow: 3)])
        try await store.send(
            .movieIsPicked(withId: 8), from: 13, outcome: .navigated, actions: ["push movie#14"],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      movie#14 /movies/8 *"))
    }

    @Test("rule 3: .end removes the child flow with its subtree, then the parent navigates the step")
    func endForwardsToParent() async throws {
        let store = try await startedStore(onboarded: false)
        let login = try #require(store.top)
        try await store.send(
            .userIsLoggedIn(name: "Ada"), from: login, actions: ["push apikey#15"], tree: treeAfterLogin)
        let navigation = try await store.send(
            .apiKeyIsFilledIn(apiKey: "k"), from: 15, actions: ["dismiss onboarding#3", "endFlow onboarding#3"],
            tree: """
                app#1 single
                  dashboard#2 tabs selected=0
                    movies#4 stack
                      list#8 /wishlist *
                    movies#5 stack
                      list#9 /watched
                    trending#6 stack
                      trending#10 /trending
                        embedded embedded-list#11 single
                          list#13 /trending-movies
                        embedded embedded-list#12 single
                          list#14 /trending-cast
                """)
        #expect(navigation.steps.map(\.flowName) == ["onboarding", "app"])
        #expect(navigation.steps.map(\.step) == [.apiKeyIsFilledIn(apiKey: "k"), .onboardingIsComplete])
    }

    @Test("rule 3: at the root, .end discards the step without error")
    func endAtRoot() async throws {
        struct Root: Flow {
            static let name = "root"
            static let container = ContainerKind.stack
            mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
                step == .noop ? .end(forwardToParentFlowWithStep: .loop) : .one(.push(ListPage(list: "home")))
            }
        }
        let app = try FlowApp(
            root: Root(), stepper: OneStepper(withSingleStep: TestStep.moviesAreRequired), flows: [Root.self],
            pages: [ListPage.self])
        let store = try await FlowTestStore(app: app)
        try await store.send(
            .noop, outcome: .unchanged, actions: [],
            tree: """
                root#1 stack
                  list#2 /home *
                """)
    }

    @Test("rule 4: triggerParentFlow makes the parent navigate; the child stays")
    func triggerParent() async throws {
        let store = try await startedStore()
        let navigation = try await store.send(
            .logoutIsRequired, from: 6, actions: ["startFlow onboarding#13", "present onboarding#13", "push login#14"],
            tree: """
                app#1 single
                  dashboard#2 tabs selected=0
                    movies#3 stack
                      list#6 /wishlist
                    movies#4 stack
                      list#7 /watched
                    trending#5 stack
                      trending#8 /trending
                        embedded embedded-list#9 single
                          list#11 /trending-movies
                        embedded embedded-list#10 single
                          list#12 /trending-cast
                  presented onboarding#13 stack
                    login#14 /onboarding/login *
                """)
        #expect(navigation.steps.map(\.flowName) == ["movies", "dashboard", "app", "onboarding"])
    }

    @Test("rules 5 and 6: contributors take effect in order; steppers' and forwarded steps follow, never re-entrantly")
    func forwardingOrder() async throws {
        let store = try await startedStore()
        let navigation = try await store.send(
            .twoForwards, from: 6, actions: ["push movie#13", "push cast#14", "push movie#15"],
            tree:
                startedTree
                .replacingOccurrences(
                    of: "list#6 /wishlist *",
                    with:
                        "list#6 /wishlist\n      movie#13 /movies/1\n      cast#14 /cast/2\n      movie#15 /movies/3 *")
        )
        #expect(navigation.steps.map(\.step) == [.twoForwards, .castIsPicked(withId: 2), .movieIsPicked(withId: 3)])
    }

    @Test("rule 5: a flow forwarding to itself forever is stopped as a loop, and the tree is untouched")
    func forwardingLoop() async throws {
        let store = try await startedStore()
        var tree = store.tree
        await #expect(throws: NavigationError.self) {
            _ = try await store.coordinator.apply(.loop, from: 6, to: &tree)
        }
        #expect(tree == store.tree)
    }

    @Test("rule 7: a contributed child flow starts with its stepper's initial steps, navigated by the child only")
    func childFlowStarts() async throws {
        let store = try await startedStore()
        let navigation = try await store.send(
            .settingsAreRequired, from: 6,
            actions: [
                "startFlow settings#13", "present settings#13", "push settings#14", "present alert#15",
            ],
            tree: startedTree.replacingOccurrences(
                of: "list#6 /wishlist *",
                with: """
                    list#6 /wishlist
                          presented settings#13 split
                            settings#14 /settings
                            presented alert#15 /alert *
                    """))
        #expect(navigation.steps.map(\.flowName) == ["movies", "settings"])
    }

    @Test("rule 8: a flow left without pages ends, and whatever it started ends with it")
    func emptyFlowsEnd() async throws {
        struct Popper: Flow {
            static let name = "popper"
            static let container = ContainerKind.tabs
            mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
                switch step {
                case .dashboardIsRequired:
                    .multiple([
                        .tab(TrendingOnly(), stepper: OneStepper(withSingleStep: .trendingsAreRequired)),
                        .tab(TrendingOnly(), stepper: OneStepper(withSingleStep: .trendingsAreRequired)),
                    ])
                default: .none
                }
            }
        }
        struct TrendingOnly: Flow {
            static let name = "trending-only"
            static let container = ContainerKind.stack
            mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
                switch step {
                case .trendingsAreRequired:
                    .multiple([
                        .push(TrendingPage()),
                        .embed(
                            EmbeddedListFlow(kind: "movies"), stepper: OneStepper(withSingleStep: .moviesAreRequired)),
                    ])
                case .noop: .one(.pop)
                default: .none
                }
            }
        }
        let app = try FlowApp(
            root: Popper(), stepper: OneStepper(withSingleStep: TestStep.dashboardIsRequired),
            flows: [Popper.self, TrendingOnly.self, EmbeddedListFlow.self], pages: [TrendingPage.self, ListPage.self])
        let store = try await FlowTestStore(app: app)
        try await store.visit(
            6,
            tree: """
                popper#1 tabs selected=1
                  trending-only#2 stack
                    trending#4 /trending
                      embedded embedded-list#5 single
                        list#8 /trending-movies
                  trending-only#3 stack
                    trending#6 /trending *
                      embedded embedded-list#7 single
                        list#9 /trending-movies
                """)
        try await store.send(
            .noop, from: 6, actions: ["pop trending#6", "endFlow embedded-list#7", "endFlow trending-only#3"],
            tree: """
                popper#1 tabs selected=0
                  trending-only#2 stack
                    trending#4 /trending *
                      embedded embedded-list#5 single
                        list#8 /trending-movies
                """)
    }

    @Test("rule 9: without `from`, the top flow tries first, then its ancestors; the first that navigates wins")
    func responderChain() async throws {
        let store = try await startedStore()
        try await store.send(
            .movieIsPicked(withId: 42), actions: ["push movie#13"],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      movie#13 /movies/42 *"))
        let upward = try await store.send(
            .onboardingIsComplete, outcome: .unchanged, actions: [],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      movie#13 /movies/42 *"))
        #expect(upward.steps.map(\.flowName) == ["movies", "dashboard", "app"])
        try await store.send(
            .castListAreRequired, outcome: .ignored, actions: [],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      movie#13 /movies/42 *"))
    }

    @Test("rule 10: observers see willNavigate before and didNavigate after every navigation")
    func observers() async throws {
        let observer = RecordingObserver()
        let store = try await startedStore(observers: [observer])
        #expect(
            observer.events.prefix(4) == [
                "will app#1 dashboardIsRequired", "did app#1 dashboardIsRequired",
                "will dashboard#2 dashboardIsRequired", "did dashboard#2 dashboardIsRequired",
            ])
        let before = observer.events.count
        try await store.send(.logoutIsRequired, from: 6, tree: treeAfterLogout)
        #expect(
            Array(observer.events[before...]) == [
                "will movies#3 logoutIsRequired", "did movies#3 logoutIsRequired",
                "will dashboard#2 logoutIsRequired", "did dashboard#2 logoutIsRequired",
                "will app#1 logoutIsRequired", "did app#1 logoutIsRequired",
                "will onboarding#13 loginIsRequired", "did onboarding#13 loginIsRequired",
            ])
    }

    @Test("rule 11: node ids are unique, never reused, and survive encoding")
    func nodeIDs() async throws {
        let store = try await startedStore()
        try await store.send(
            .movieIsPicked(withId: 1), from: 6, actions: ["push movie#13"],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      movie#13 /movies/1 *"))
        try await store.visit(6, tree: startedTree)
        try await store.send(
            .movieIsPicked(withId: 1), from: 6, actions: ["push movie#14"],
            tree:
                startedTree
                .replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist\n      movie#14 /movies/1 *"))
        var decoded = try TreeCoding.roundTrip(store.tree)
        #expect(decoded == store.tree)
        _ = try await store.coordinator.apply(.castIsPicked(withId: 2), from: 14, to: &decoded)
        #expect(decoded.top?.id == 15)
    }

    @Test("rule 12: exactly one top page, with a URL derived from its params, and a valid tree")
    func oneTop() async throws {
        let store = try await startedStore()
        #expect(store.tree.top?.id == 6)
        #expect(store.tree.pages.allSatisfy { $0.url == $0.page.path })
        try store.tree.validate(store.coordinator.app.registry)
    }

    @Test("rule 13: encoding then decoding gives an equal tree; replaying the history gives an equal tree")
    func encodingAndReplay() async throws {
        let store = try await startedStore(onboarded: false)
        try await store.send(.userIsLoggedIn(name: "A"), from: store.top, tree: treeAfterLogin)
        #expect(try TreeCoding.roundTrip(store.tree) == store.tree)
        #expect(try await store.coordinator.replay(store.history) == store.tree)
    }
}

/// The not-onboarded tree after the login form.
let treeAfterLogin = """
    app#1 single
      dashboard#2 tabs selected=0
        movies#4 stack
          list#8 /wishlist
        movies#5 stack
          list#9 /watched
        trending#6 stack
          trending#10 /trending
            embedded embedded-list#11 single
              list#13 /trending-movies
            embedded embedded-list#12 single
              list#14 /trending-cast
      presented onboarding#3 stack
        login#7 /onboarding/login
        apikey#15 /onboarding/apikey *
    """

/// The started tree after a logout from the wishlist.
let treeAfterLogout =
    startedTree.replacingOccurrences(of: "list#6 /wishlist *", with: "list#6 /wishlist")
    + "\n  presented onboarding#13 stack\n    login#14 /onboarding/login *"

/// JSON round trips with the app in the decoder's userInfo.
enum TreeCoding {
    static func roundTrip(_ tree: NavigationTree) throws -> NavigationTree {
        try decode(try JSONEncoder().encode(tree))
    }

    static func decode(_ data: Data) throws -> NavigationTree {
        let decoder = JSONDecoder()
        decoder.userInfo[.flowRegistry] = try MoviesLikeApp.app().registry
        return try decoder.decode(NavigationTree.self, from: data)
    }
}
