import FlowCore
import Foundation

/// FlowCore's benchmark: the median time to apply a push step on a three-level tree
/// (app → tabs → stack), and to encode and decode a 20-node tree as JSON.
@main
enum EngineBench {
    enum Step: FlowStep {
        case start
        case open(Int)
        case back
    }

    struct Root: Flow {
        static let name = "root"
        static let container = ContainerKind.single
        mutating func navigate(to step: Step, context: FlowContext) -> FlowContributors<Step> {
            step == .start ? .one(.show(Tabs(), stepper: OneStepper(withSingleStep: .start))) : .none
        }
    }

    struct Tabs: Flow {
        static let name = "tabs"
        static let container = ContainerKind.tabs
        mutating func navigate(to step: Step, context: FlowContext) -> FlowContributors<Step> {
            step == .start
                ? .multiple((0..<3).map { _ in .tab(Stack(), stepper: OneStepper(withSingleStep: .start)) }) : .none
        }
    }

    struct Stack: Flow {
        static let name = "stack"
        static let container = ContainerKind.stack
        var opened = 0
        mutating func navigate(to step: Step, context: FlowContext) -> FlowContributors<Step> {
            switch step {
            case .start: return .one(.push(Item(id: 0)))
            case .open(let id):
                opened += 1
                return .one(.push(Item(id: id)))
            case .back: return .one(.pop)
            }
        }
    }

    struct Item: Page {
        static let name = "item"
        var id: Int
        var path: String { "/items/\(id)" }
    }

    static func main() async throws {
        // Measured off the main actor, so awaiting the coordinator does not hop executors.
        try await Task.detached { try await measure() }.value
    }

    static func measure() async throws {
        let app = try FlowApp(
            root: Root(), stepper: OneStepper(withSingleStep: Step.start), flows: [Root.self, Tabs.self, Stack.self],
            pages: [Item.self])
        let coordinator = Coordinator(app: app)
        let (started, _) = try await coordinator.start()

        // Push on a three-level tree: measured on a copy each time, so trees stay the same size.
        let clock = ContinuousClock()
        var samples: [Duration] = []
        let top = started.top!.id
        let applyRounds = ProcessInfo.processInfo.environment["APPLY_ROUNDS"].flatMap(Int.init) ?? 2_000
        for round in 0..<applyRounds {
            var tree = started
            let begin = clock.now
            _ = try await coordinator.apply(.open(round), from: top, to: &tree)
            samples.append(clock.now - begin)
        }

        if ProcessInfo.processInfo.environment["APPLY_ROUNDS"] != nil { return }
        // A 20-node tree: root, tabs, 3 stacks with 5 pages each (20 nodes).
        var big = started
        for stack in 0..<3 {
            let stackTop = big.flows.filter { $0.flow.name == "stack" }[stack].children.last!.id
            _ = try coordinator.visit(stackTop, in: &big)
            for id in 1...4 { _ = try await coordinator.apply(.open(id), from: big.top!.id, to: &big) }
        }
        let nodes = big.flows.count + big.pages.count
        var codingSamples: [Duration] = []
        var bytes = 0
        for _ in 0..<2_000 {
            let begin = clock.now
            let data = try big.jsonBytes()
            let decoded = try NavigationTree(json: data, registry: app.registry)
            codingSamples.append(clock.now - begin)
            bytes = data.count
            precondition(decoded == big)
        }
        // Foundation's JSONEncoder/JSONDecoder on the same tree, for comparison.
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        decoder.userInfo[.flowRegistry] = app.registry
        var foundationSamples: [Duration] = []
        for _ in 0..<500 {
            let begin = clock.now
            let data = try encoder.encode(big)
            _ = try decoder.decode(NavigationTree.self, from: data)
            foundationSamples.append(clock.now - begin)
        }

        func median(_ values: [Duration]) -> Double {
            let sorted = values.sorted()
            let (seconds, attoseconds) = sorted[sorted.count / 2].components
            return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        }
        print(
            """
            FlowCore engine, median of 2,000 runs each.

            | operation | median µs | target |
            | --- | --- | --- |
            | apply a push step on a three-level tree | \(String(format: "%.2f", median(samples))) | < 5 |
            | encode + decode a \(nodes)-node tree (CompactJSON, \(bytes) bytes) | \(String(format: "%.2f", median(codingSamples))) | < 100 |
            | the same with Foundation's JSONEncoder/JSONDecoder | \(String(format: "%.2f", median(foundationSamples))) | (peer) |
            """)
    }
}
