import FlowCore
import FlowTesting
import Testing

/// A counter app: each opened page counts in the session's app data; `peek` is refused once
/// two pages were opened, a decision `adapt` takes from the app data.
private struct CounterData: AppData {
    var opened = 0
}

private enum CountStep: FlowStep {
    case start
    case open(Int)
    case peek
}

private struct CounterFlow: Flow {
    static let name = "counter"
    static let container = ContainerKind.stack

    func adapt(_ step: CountStep, context: FlowContext) async -> StepAdaptation<CountStep> {
        step == .peek && context.appData(CounterData.self).opened >= 2 ? .refuse : .step(step)
    }

    mutating func navigate(to step: CountStep, context: FlowContext) -> FlowContributors<CountStep> {
        switch step {
        case .start: return .one(.push(CountPage(number: 0)))
        case .open(let number):
            context.updateAppData(CounterData.self) { $0.opened += 1 }
            return .one(.push(CountPage(number: number)))
        case .peek: return .one(.push(CountPage(number: -1)))
        }
    }
}

private struct CountPage: Page {
    static let name = "count"
    var number: Int
    var path: PagePath { "/count/\(number)" }
}

private func counterApp() throws -> FlowApp<CountStep> {
    try FlowApp(
        root: CounterFlow(), stepper: OneStepper(withSingleStep: CountStep.start), flows: [CounterFlow.self],
        pages: [CountPage.self], appData: CounterData.self)
}

@Suite("App data: one Codable value per session beside the tree")
struct AppDataTests {
    @Test("a new session has the app data type's initial value; an app without one has NoAppData")
    func initial() async throws {
        let store = try await FlowTestStore(app: counterApp())
        #expect(store.appData(CounterData.self) == CounterData())
        let plain = try await startedStore()
        #expect(plain.tree.appData == AnyAppData(NoAppData()))
    }

    @Test("navigate changes it, visits leave it, and replaying the history rebuilds it")
    func changesAndReplay() async throws {
        let store = try await FlowTestStore(app: counterApp())
        try await store.send(.open(1), tree: "counter#1 stack\n  count#2 /count/0\n  count#3 /count/1 *")
        try await store.send(
            .open(2), tree: "counter#1 stack\n  count#2 /count/0\n  count#3 /count/1\n  count#4 /count/2 *")
        #expect(store.appData(CounterData.self)?.opened == 2)
        try await store.visit(NodeID(rawValue: 2), tree: "counter#1 stack\n  count#2 /count/0 *")
        #expect(store.appData(CounterData.self)?.opened == 2)
        let rebuilt = try await store.coordinator.replay(store.history)
        #expect(rebuilt.appData == AnyAppData(CounterData(opened: 2)))
        #expect(rebuilt.appData != AnyAppData(CounterData(opened: 3)))
        #expect(rebuilt.appData != AnyAppData(NoAppData()))
        #expect(rebuilt == store.tree)
    }

    @Test("adapt reads it: peek is refused once two pages were opened")
    func adaptReads() async throws {
        let store = try await FlowTestStore(app: counterApp())
        try await store.send(
            .peek, outcome: .navigated, tree: "counter#1 stack\n  count#2 /count/0\n  count#3 /count/-1 *")
        try await store.send(
            .open(1), tree: "counter#1 stack\n  count#2 /count/0\n  count#3 /count/-1\n  count#4 /count/1 *")
        try await store.send(
            .open(2),
            tree: "counter#1 stack\n  count#2 /count/0\n  count#3 /count/-1\n  count#4 /count/1\n  count#5 /count/2 *")
        try await store.send(
            .peek, outcome: .rejected,
            tree: "counter#1 stack\n  count#2 /count/0\n  count#3 /count/-1\n  count#4 /count/1\n  count#5 /count/2 *")
    }

    @Test("it is stored as its own JSON beside the tree's and read back with the app's registry")
    func storedApart() async throws {
        let app = try counterApp()
        let store = try await FlowTestStore(app: app)
        try await store.send(.open(5), tree: "counter#1 stack\n  count#2 /count/0\n  count#3 /count/5 *")
        let data = try store.tree.appDataJSON()
        #expect(String(decoding: data, as: UTF8.self) == #"{"opened":1}"#)
        #expect(!String(decoding: try store.tree.jsonBytes(), as: UTF8.self).contains("opened"))
        let read = try NavigationTree(json: try store.tree.jsonBytes(), appData: data, registry: app.registry)
        #expect(read == store.tree)
        let fresh = try NavigationTree(json: try store.tree.jsonBytes(), registry: app.registry)
        #expect(fresh.appData == app.registry.initialAppData)
        #expect(throws: DecodingError.self) {
            try NavigationTree(
                json: try store.tree.jsonBytes(), appData: Array(#"{"opened":"many"}"#.utf8), registry: app.registry)
        }
    }

    @Test("outside a session a context reads the initial value; a rendering context reads the session's")
    func contexts() {
        let context = FlowContext()
        #expect(context.appData(CounterData.self) == CounterData())
        #expect(context.reading(AnyAppData(CounterData(opened: 3))).appData(CounterData.self).opened == 3)
    }
}
