import FlowCore
import Testing

/// Tests flows without HTTP, in the spirit of TCA's `TestStore`: send a step or a visit, state
/// the tree that must result (its `NavigationTree.outline`) and, if you like, the actions and the
/// outcome.
///
/// ```swift
/// @Test func pickingAMoviePushesItsPage() async throws {
///     let store = try await FlowTestStore(app: MoviesApp.app)
///     try await store.send(.movieIsPicked(withId: 42), from: store.top, actions: ["push movie#9"], tree: """
///         app#1 single
///           dashboard#2 tabs selected=0
///             wishlist#3 stack
///               wishlist#4 /wishlist
///               movie#9 /movies/42 *
///             watched#5 stack
///               watched#6 /watched
///         """)
/// }
/// ```
///
/// By default the store is exhaustive: every step states the whole tree, and anything else that
/// changed fails the test with a line-by-line diff. With ``exhaustivity`` `.off`, a test states
/// only what it cares about: the lines given must each be found, in order, within the outline's
/// lines (`"movie#9 /movies/42 *"`, or just `"/movies/42 *"` for "the top page is /movies/42"),
/// and a step may state no tree at all.
///
/// Whatever the exhaustivity, the store checks every tree it reaches: invariants hold, encoding
/// and decoding (with the app data) gives the same tree, and replaying the history from the start
/// rebuilds it, app data included.
public final class FlowTestStore<Step: FlowStep> {
    /// How much of each resulting tree a test must state.
    public enum Exhaustivity: Sendable, Equatable {
        /// The whole outline, for every step and visit.
        case on
        /// Only the lines a test gives, found in order; or nothing.
        case off
    }

    /// The coordinator under test.
    public private(set) var coordinator: Coordinator<Step>
    /// The current tree.
    public private(set) var tree: NavigationTree
    /// Every navigation so far, the start first.
    public private(set) var history: [Navigation<Step>]
    /// How much of each tree a test must state (`.on` by default).
    public var exhaustivity: Exhaustivity = .on

    /// The services flows use from now on: change them during a test (a service that now fails,
    /// a catalog with a new product) with `store.context.register(…)`. Replaying the history, which
    /// the store does after every step, then uses the new services, as a server replaying the
    /// session later would; only the decisions `adapt` recorded are kept as they were made.
    public var context: FlowContext {
        get { coordinator.context }
        set { coordinator.context = newValue }
    }

    /// The current top page's id.
    public var top: NodeID? { tree.top?.id }

    /// The session's app data as `Data` (`nil` when the app declared another type).
    public func appData<Data: AppData>(_ type: Data.Type) -> Data? { tree.appData.as(type) }

    /// Starts the app.
    public init(
        app: FlowApp<Step>, context: FlowContext = FlowContext(), observers: [any NavigationObserver<Step>] = []
    ) async throws {
        coordinator = Coordinator(app: app, context: context, observers: observers)
        let (tree, navigation) = try await coordinator.start()
        self.tree = tree
        history = [navigation]
    }

    /// Sends `step` (from page `from`, or up the responder chain) and checks the result. A `nil`
    /// expectation is not checked, except `tree` when the store is exhaustive.
    @discardableResult
    public func send(
        _ step: Step, from: NodeID? = nil, outcome: NavigationOutcome? = nil, actions: [String]? = nil,
        tree expected: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Navigation<Step> {
        let navigation = try await coordinator.apply(step, from: from, to: &tree)
        history.append(navigation)
        try await check(navigation, outcome: outcome, actions: actions, tree: expected, sourceLocation: sourceLocation)
        return navigation
    }

    /// Visits page `page` and checks the result, as ``send(_:from:outcome:actions:tree:sourceLocation:)``.
    @discardableResult
    public func visit(
        _ page: NodeID, outcome: NavigationOutcome? = nil, actions: [String]? = nil, tree expected: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Navigation<Step> {
        let navigation = try coordinator.visit(page, in: &tree)
        history.append(navigation)
        try await check(navigation, outcome: outcome, actions: actions, tree: expected, sourceLocation: sourceLocation)
        return navigation
    }

    /// The id of the page at `url` nearest the top.
    public func page(at url: String) -> NodeID? { tree.page(at: url)?.id }

    private func check(
        _ navigation: Navigation<Step>, outcome: NavigationOutcome?, actions: [String]?, tree expected: String?,
        sourceLocation: SourceLocation
    ) async throws {
        if let outcome, navigation.outcome != outcome {
            Issue.record("outcome: expected \(outcome), got \(navigation.outcome)", sourceLocation: sourceLocation)
        }
        if let actions {
            let actual = navigation.actions.map(\.description)
            if actual != actions {
                Issue.record(
                    "actions differ:\n\(Self.diff(expected: actions, actual: actual))", sourceLocation: sourceLocation)
            }
        }
        checkTree(expected, sourceLocation: sourceLocation)
        do {
            try tree.validate(coordinator.app.registry)
        } catch {
            Issue.record("the tree breaks an invariant: \(error)", sourceLocation: sourceLocation)
        }
        let decoded = try NavigationTree(
            json: try tree.jsonBytes(), appData: try tree.appDataJSON(), registry: coordinator.app.registry)
        if decoded != tree {
            Issue.record(
                "encoding and decoding gives another tree:\n\(decoded.outline)", sourceLocation: sourceLocation)
        }
        let rebuilt = try await coordinator.replay(history)
        if rebuilt != tree {
            Issue.record(
                "replaying the history gives another tree:\n\(rebuilt.outline)", sourceLocation: sourceLocation)
        }
    }

    private func checkTree(_ expected: String?, sourceLocation: SourceLocation) {
        let actual = tree.outline.split(separator: "\n").map(String.init)
        guard let expected else {
            if exhaustivity == .on {
                Issue.record(
                    "an exhaustive store needs the whole tree; it is now:\n\(tree.outline)\n(or set exhaustivity = .off)",
                    sourceLocation: sourceLocation)
            }
            return
        }
        let lines = Self.normalized(expected).split(separator: "\n").map(String.init)
        switch exhaustivity {
        case .on:
            if actual != lines {
                Issue.record(
                    "the tree differs (− expected, + actual):\n\(Self.diff(expected: lines, actual: actual))",
                    sourceLocation: sourceLocation)
            }
        case .off:
            if let missing = Self.firstMissing(lines.map { $0.trimmingLeadingSpaces() }, in: actual) {
                Issue.record(
                    "the tree has no line with \"\(missing)\" where expected (in order); it is:\n\(tree.outline)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// The first of `wanted` not found, in order, within a line of `lines`; `nil` when all are.
    static func firstMissing(_ wanted: [String], in lines: [String]) -> String? {
        var index = lines.startIndex
        for fragment in wanted {
            guard let found = lines[index...].firstIndex(where: { $0.contains(fragment) }) else { return fragment }
            index = found + 1
        }
        return nil
    }

    private static func normalized(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
            .joined(separator: "\n")
    }

    /// A line diff: `  ` same, `− ` expected only, `+ ` actual only.
    static func diff(expected: [String], actual: [String]) -> String {
        // Longest common subsequence, small inputs.
        let n = expected.count
        let m = actual.count
        var lengths = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i][j] =
                    expected[i] == actual[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var lines: [String] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                lines.append("  \(expected[i])")
                i += 1
                j += 1
            } else if j < m, i == n || lengths[i][j + 1] >= lengths[i + 1][j] {
                lines.append("+ \(actual[j])")
                j += 1
            } else {
                lines.append("− \(expected[i])")
                i += 1
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func trimmingLeadingSpaces() -> String { String(drop(while: { $0 == " " })) }
}
