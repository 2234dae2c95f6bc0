import FlowTesting
import Foundation
import MoviesDemo
import Testing

@Suite("The flow explorer on the Movies demo")
struct ExplorerTests {
    /// The repository's `Templates`, wherever the tests run from.
    static let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Templates").path

    @Test("every state within the bounds renders, replays and leads on; every page and route is reached")
    func wholeDemo() async throws {
        let explorer = try FlowExplorer(
            app: try MoviesDemo.webApp(), templatesDirectory: Self.templates,
            samples: ExplorationSamples(forms: ["userIsLoggedIn": ["name": "Ada"], "apiKeyIsFilledIn": ["apiKey": "k"]]
            ),
            bounds: ExplorationBounds(depth: 5, states: 5_000, linksPerStep: 2))
        let report = try await explorer.explore()
        print("explorer, Movies demo: \(report.summary)")
        report.expectNoFindings()
        #expect(!report.truncated, "the state bound stopped it: raise it, or lower the depth")
        #expect(report.states > 50 && report.graph.edges.count > 20)
        #expect(report.graph.nodes.contains(.init(flow: "wishlist", page: "movie")))
        // The graph's steps, as the picture in Docs/TOUR.md shows them.
        let dot = report.graph.dot()
        #expect(dot.contains("\"onboarding.login\" -> \"onboarding.apikey\" [label=\"userIsLoggedIn\"]"))
        #expect(dot.contains("\"wishlist.wishlist\" -> \"wishlist.movie\" [label=\"movieIsPicked\"]"))
    }
}
