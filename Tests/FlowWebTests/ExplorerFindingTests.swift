import FlowCore
import FlowTesting
import FlowWeb
import Foundation
import Synchronization
import Testing

/// An app with one of each defect the explorer looks for.
private enum BrokenStep: FlowStep {
    case start
    case deeper(level: Int)
    case trap, loop, moving, promo, lost
}

/// A service whose answer changes every time it is asked: a flow that decides by it does not
/// replay to the same tree.
private final class Ticker: Sendable {
    private let count = Mutex(0)
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}

private struct BrokenFlow: Flow {
    static let name = "broken"
    static let container = ContainerKind.stack
    mutating func navigate(to step: BrokenStep, context: FlowContext) -> FlowContributors<BrokenStep> {
        switch step {
        case .start: .one(.push(StartPage()))
        case .deeper(let level): .one(.push(LevelPage(level: level)))
        case .trap: .one(.set([TrapPage()]))
        case .loop: .one(.forwardToCurrentFlow(withStep: .loop))
        case .moving: .one(.push(LevelPage(level: 1000 + (context[Ticker.self]?.next() ?? 0))))
        case .promo: .one(.push(LevelPage(level: 99)))
        case .lost: .none
        }
    }
}

private struct StartPage: WebPage {
    static let name = "start"
    static let template = "pages/start"
    var path: PagePath { "/start" }
    var title: String { "Start" }
    struct Model: Encodable { var links: [String] }
    func model(in context: PageContext) throws -> Model {
        Model(links: [BrokenStep.deeper(level: 1), .trap, .loop, .moving].map { context.link(to: $0) })
    }
}

/// A page that links one level deeper, without end (a leak), and fails to render at level 3.
private struct LevelPage: WebPage {
    static let name = "level"
    static let template = "pages/level"
    var level: Int
    var path: PagePath { "/levels/\(level)" }
    var title: String { "Level \(level)" }
    struct Model: Encodable { var next: String }
    struct Broken: Error {}
    func model(in context: PageContext) throws -> Model {
        if level == 3 { throw Broken() }
        return Model(next: context.link(to: BrokenStep.deeper(level: level + 1)))
    }
}

/// A page with no way out: its flow's stack holds it alone, and it links nowhere.
private struct TrapPage: WebPage {
    static let name = "trap"
    static let template = "pages/trap"
    var path: PagePath { "/trap" }
    var title: String { "Trap" }
    func model(in context: PageContext) throws -> [String: String] { [:] }
}

/// A page registered but never shown.
private struct OrphanPage: WebPage {
    static let name = "orphan"
    static let template = "pages/trap"
    var path: PagePath { "/orphan" }
    var title: String { "Orphan" }
    func model(in context: PageContext) throws -> [String: String] { [:] }
}

@Suite("The flow explorer's checks")
struct ExplorerFindingTests {
    private func brokenApp() throws -> WebApp<BrokenStep> {
        var context = FlowContext()
        context.register(Ticker())
        let pages: [any WebPage.Type] = [StartPage.self, LevelPage.self, TrapPage.self, OrphanPage.self]
        return try WebApp(
            flows: try FlowApp(
                root: BrokenFlow(), stepper: OneStepper(withSingleStep: BrokenStep.start), flows: [BrokenFlow.self],
                pages: pages.map { $0 }),
            pages: pages,
            deepLinks: [
                DeepLinkRoute("/promo") { _, _ in .promo },  // shows /levels/99: never /promo
                DeepLinkRoute("/nowhere/{id:int}") { _, _ in nil },  // always 404
            ], context: context)
    }

    private func brokenTemplates() throws -> URL {
        try TestTemplates.directory(extra: [
            "pages/start.mustache": "{{#links}}<a href=\"{{.}}\">go</a>{{/links}}",
            "pages/level.mustache": "<a href=\"{{next}}\">deeper</a>",
            "pages/trap.mustache": "<p>No way out.</p>",
        ])
    }

    @Test("each defect is found, with the path that leads to it")
    func findsEachDefect() async throws {
        let directory = try brokenTemplates()
        let explorer = try FlowExplorer(
            app: try brokenApp(), templatesDirectory: directory.path,
            bounds: ExplorationBounds(depth: 12, states: 200, nodesPerTree: 6))
        let report = try await explorer.explore()
        let kinds = Set(report.findings.map(\.kind))
        #expect(
            kinds == [
                .serverError, .renderError, .deadEnd, .unreachedPage, .unreachedRoute, .deepLinkTargetNeverShown,
                .replayMismatch, .treeTooLarge, .limitReachable,
            ], "\(report.findings)")
        let growing = try #require(report.findings.first { $0.kind == .limitReachable })
        #expect(
            growing.message.contains("lead back to level") && growing.message.contains("(stack-depth)"), "\(growing)")
        #expect(growing.path.count >= 3 && growing.path.suffix(2).allSatisfy { $0.hasPrefix("link /_step/deeper") })
        let render = try #require(report.findings.first { $0.kind == .renderError })
        #expect(render.message.contains("/levels/3") && render.path.count == 3, "\(render)")
        let deadEnd = try #require(report.findings.first { $0.kind == .deadEnd })
        #expect(deadEnd.message.contains("trap") && deadEnd.path == ["link /_step/trap"], "\(deadEnd)")
        let loop = try #require(report.findings.first { $0.kind == .serverError })
        #expect(loop.path == ["link /_step/loop"], "\(loop)")
        // It says what failed, as the server logged it, not the first bytes of the error page.
        #expect(loop.message.contains("navigations for one step") && loop.message.contains("(reference "), "\(loop)")
        #expect(!loop.message.contains("<"), "\(loop)")
        #expect(report.findings.contains { $0.kind == .unreachedPage && $0.message.contains("orphan") })
        #expect(report.findings.contains { $0.kind == .unreachedRoute && $0.message.contains("/nowhere/{id:int}") })
        #expect(report.findings.contains { $0.kind == .deepLinkTargetNeverShown && $0.message.contains("/promo") })
        // The graph: pages as nodes in their flow's cluster, steps as edges.
        let dot = report.graph.dot()
        #expect(dot.contains("subgraph \"cluster_broken\""))
        #expect(dot.contains("\"broken.start\" -> \"broken.level\" [label=\"deeper\nmoving\"]"))
        #expect(dot.contains("\"broken.start\" -> \"broken.trap\" [label=\"trap\"]"))
    }

    @Test("a state holding four fifths of a session limit is reported with its path")
    func nearLimit() async throws {
        let report = try await FlowExplorer(
            app: try brokenApp(), templatesDirectory: try brokenTemplates().path,
            bounds: ExplorationBounds(depth: 3), limits: SessionLimits(nodes: 5)
        ).explore()
        let near = try #require(report.findings.first { $0.kind == .limitReachable }, "\(report.findings)")
        #expect(near.message.contains("holds 4 of at most 5 (nodes)"), "\(near)")
        #expect(!near.path.isEmpty)
    }

    @Test("a route given no samples is not tried, and not reported as unreached")
    func skippedRoute() async throws {
        let directory = try brokenTemplates()
        let report = try await FlowExplorer(
            app: try brokenApp(), templatesDirectory: directory.path,
            samples: ExplorationSamples(deepLinks: ["/nowhere/{id:int}": []]), bounds: ExplorationBounds(depth: 2)
        ).explore()
        #expect(!report.findings.contains { $0.kind == .unreachedRoute }, "\(report.findings)")
        #expect(report.findings.contains { $0.kind == .deadEnd })
    }
}
