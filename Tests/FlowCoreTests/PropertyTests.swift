import FlowCore
import Foundation
import PropertyBased
import Testing

/// Random steps and visits through the demo-like app; after every operation the tree keeps the
/// invariants (rules 8, 11, 12) and survives encoding (13); at the end, replay rebuilds it (13).
@Suite("Random navigation keeps the tree valid")
struct PropertyTests {
    static let steps: [TestStep] = [
        .dashboardIsRequired, .onboardingIsRequired, .onboardingIsComplete, .logoutIsRequired, .loginIsRequired,
        .userIsLoggedIn(name: "Ada"), .apiKeyIsFilledIn(apiKey: "k"), .moviesAreRequired, .movieIsPicked(withId: 1),
        .movieIsPicked(withId: 2), .castIsPicked(withId: 3), .settingsAreRequired, .settingsAreComplete,
        .aboutIsRequired,
        .unauthorized, .trendingsAreRequired, .castListAreRequired, .alert(message: "hi"), .noop, .twoForwards,
        .refuseMe,
    ]

    @Test("rules 8, 11, 12 and 13 after every random step and visit")
    func randomNavigation() async {
        await propertyCheck(count: 150, input: Gen.int(in: 0...1_000_000).array(of: 1...40)) { choices in
            let app = try MoviesLikeApp.app(onboarded: choices[0].isMultiple(of: 2))
            let coordinator = Coordinator(app: app)
            var (tree, start) = try await coordinator.start()
            var history = [start]
            var previous: EncodedTree?
            var everID = Set(tree.flows.map(\.id)).union(tree.pages.map(\.id))
            for choice in choices {
                let pages = tree.pages
                let previousNext = tree.nextNodeID
                let navigation: Navigation<TestStep>
                if choice % 3 == 0 {
                    navigation = try coordinator.visit(pages[choice / 3 % pages.count].id, in: &tree)
                } else {
                    let step = Self.steps[choice / 3 % Self.steps.count]
                    let from: NodeID? =
                        choice % 7 == 0
                        ? nil
                        : choice % 11 == 0 ? NodeID(rawValue: choice % 40 + 1) : pages[choice / 5 % pages.count].id
                    navigation = try await coordinator.apply(step, from: from, to: &tree)
                }
                history.append(navigation)
                // Rule 12: valid, exactly one top page with a derived URL.
                try tree.validate(app.registry)
                // Its JSON, written with each page's unchanging part kept and copied from the
                // previous commit's where unchanged, reads back as the same tree, and the size
                // measured while writing it is the tree's.
                let encoded = try tree.encoded(reusing: previous)
                let json = encoded.bytes
                #expect(json == (try tree.jsonBytes()))
                #expect(try NavigationTree(json: json, appData: tree.appDataJSON(), registry: app.registry) == tree)
                #expect(encoded.size == tree.size)
                previous = encoded
                // A visit's page by URL is the first of every page at that URL, found without sorting.
                for url in Set(tree.pages.map(\.url)) {
                    #expect(tree.page(at: url)?.id == tree.pages(at: url).first?.id)
                }
                let top = try #require(tree.top)
                #expect(top.url == top.page.path)
                // Rule 8: no flow without pages (validate checks it) — and no ended flow left behind.
                let emptyFlows = tree.flows.dropFirst().filter { !$0.hasPages }
                #expect(emptyFlows.isEmpty)
                // Rule 11: ids unique (validate), never reused: new ids are all above the previous counter.
                let ids = Set(tree.flows.map(\.id)).union(tree.pages.map(\.id))
                let new = ids.subtracting(everID)
                let reused = new.filter { $0.rawValue < previousNext }
                #expect(reused.isEmpty)
                everID.formUnion(ids)
                // The one-walk top page and path agree with `topPage` and `ancestry(of:)`, from every flow.
                for flow in tree.flows {
                    var path: [(flow: FlowNode, via: FlowCore.Attachment)] = []
                    let walked = flow.topPage(path: &path)
                    #expect(walked == flow.topPage)
                    if let walked, let ancestry = tree.ancestry(of: walked.id),
                        let start = ancestry.firstIndex(where: { $0.flow.id == flow.id })
                    {
                        #expect(
                            path.map { "\($0.flow.id)\($0.via)" } == ancestry[start...].map { "\($0.flow.id)\($0.via)" }
                        )
                    } else {
                        #expect(walked == nil && path.isEmpty)
                    }
                }
                // Rule 13: encoding round trip.
                #expect(try TreeCoding.roundTrip(tree) == tree)
            }
            #expect(try await coordinator.replay(history) == tree)
        }
    }
}
