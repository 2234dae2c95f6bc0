import FlowCore
import Foundation
import Testing

@Suite("Bad input gives typed errors, never a crash")
struct BadInputTests {
    private func startedJSON() async throws -> [String: Any] {
        let store = try await startedStore()
        let data = try JSONEncoder().encode(store.tree)
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    private func decode(_ object: [String: Any]) throws -> NavigationTree {
        try TreeCoding.decode(try JSONSerialization.data(withJSONObject: object))
    }

    private func expectError(
        _ object: [String: Any], containing text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try decode(object)
            Issue.record("expected an error containing \"\(text)\"", sourceLocation: sourceLocation)
        } catch let error as NavigationError {
            #expect(error.isInvalidTree, sourceLocation: sourceLocation)
            #expect("\(error)".contains(text), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a NavigationError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a JSON number out of Double's range is refused, not kept as infinity (which prints as null)")
    func numberOutOfRange() throws {
        for text in ["1e999", "[-2E6211]", #"{"a":1e309}"#] {
            #expect(throws: JSONParser.Failure.self) { try JSON(parsing: Array(text.utf8)) }
        }
        #expect(try JSON(parsing: Array("1.7976931348623157e308".utf8)) == .double(.greatestFiniteMagnitude))
    }

    @Test("an unknown flow name while decoding")
    func unknownFlow() async throws {
        var json = try await startedJSON()
        var root = json["root"] as! [String: Any]
        root["flow"] = "nonexistent"
        json["root"] = root
        expectError(json, containing: "unknown flow \"nonexistent\"")
    }

    @Test("an unknown page name while decoding")
    func unknownPage() async throws {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: try await startedJSON()), as: UTF8.self)
            .replacingOccurrences(of: "\"page\":\"trending\"", with: "\"page\":\"nope\"")
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        expectError(object, containing: "unknown page \"nope\"")
    }

    @Test("a tree that breaks an invariant")
    func invariants() async throws {
        var json = try await startedJSON()
        json["nextNode"] = 5
        expectError(json, containing: "outside 1..<5")

        json = try await startedJSON()
        var root = json["root"] as! [String: Any]
        var children = root["children"] as! [[String: Any]]
        children[0]["selected"] = 7
        root["children"] = children
        json["root"] = root
        expectError(json, containing: "selects tab 7 of 3")

        let duplicated = String(
            decoding: try JSONSerialization.data(withJSONObject: try await startedJSON()), as: UTF8.self
        )
        .replacingOccurrences(of: "\"node\":7", with: "\"node\":6")
        expectError(
            try JSONSerialization.jsonObject(with: Data(duplicated.utf8)) as! [String: Any], containing: "used twice")
    }

    @Test("decoding without the app in userInfo says how to fix it")
    func missingApp() async throws {
        let data = try JSONSerialization.data(withJSONObject: try await startedJSON())
        #expect(throws: NavigationError.self) { try JSONDecoder().decode(NavigationTree.self, from: data) }
    }

    @Test("visiting an unknown node, or a step from an unknown node")
    func unknownNodes() async throws {
        let store = try await startedStore()
        var tree = store.tree
        #expect(throws: NavigationError.self) { try store.coordinator.visit(999, in: &tree) }
        let navigation = try await store.coordinator.apply(.movieIsPicked(withId: 1), from: 999, to: &tree)
        #expect(navigation.outcome == .ignored)
        #expect(tree == store.tree)
    }

    @Test("a flow contributing what its container cannot hold")
    func invalidContributions() async throws {
        struct Tabs: Flow {
            static let name = "tabs"
            static let container = ContainerKind.tabs
            mutating func navigate(to step: TestStep, context: FlowContext) -> FlowContributors<TestStep> {
                .one(.push(ListPage(list: "x")))
            }
        }
        let app = try FlowApp(
            root: Tabs(), stepper: OneStepper(withSingleStep: TestStep.noop), flows: [Tabs.self], pages: [ListPage.self]
        )
        await #expect(throws: NavigationError.self) { _ = try await Coordinator(app: app).start() }
    }

    @Test("registering two types under one name, or forgetting the root")
    func registration() {
        #expect(throws: NavigationError.self) {
            try FlowApp(
                root: AppFlow(), stepper: NoneStepper<TestStep>(), flows: [AppFlow.self, AppFlow.self], pages: [])
        }
        #expect(throws: NavigationError.self) {
            try FlowApp(root: AppFlow(), stepper: NoneStepper<TestStep>(), flows: [DashboardFlow.self], pages: [])
        }
    }

    @Test("an unregistered page contributed by a flow is refused before it enters the tree")
    func unregisteredPage() async throws {
        let app = try FlowApp(
            root: AppFlow(onboarded: true), stepper: OneStepper(withSingleStep: TestStep.dashboardIsRequired),
            flows: MoviesLikeApp.flows, pages: MoviesLikeApp.pages.filter { $0 != MoviePage.self })
        let coordinator = Coordinator(app: app)
        var (tree, _) = try await coordinator.start()
        let before = tree
        await #expect(throws: NavigationError.self) {
            _ = try await coordinator.apply(.movieIsPicked(withId: 1), from: 6, to: &tree)
        }
        #expect(tree == before)
    }
}
