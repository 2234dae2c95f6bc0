/// How far the explorer goes.
public struct ExplorationBounds: Sendable, Hashable {
    /// The most actions on a path from the start.
    public var depth: Int
    /// The most distinct states explored.
    public var states: Int
    /// More nodes (flows and pages) than this in one tree is reported as a leak, and the state
    /// is not explored further.
    public var nodesPerTree: Int
    /// The most links of a page that send the same step (with other params: movie 1, movie 2,
    /// …) followed in one state, the first ones on the page; `nil`: all.
    public var linksPerStep: Int?

    /// Bounds: paths of up to `depth` actions, `states` distinct states, `nodesPerTree` nodes,
    /// `linksPerStep` links per step and page. The defaults explore the Movies demo in about a second.
    public init(depth: Int = 4, states: Int = 5_000, nodesPerTree: Int = 64, linksPerStep: Int? = 2) {
        self.depth = depth
        self.states = states
        self.nodesPerTree = nodesPerTree
        self.linksPerStep = linksPerStep
    }
}

/// What an app tells the explorer about input it cannot guess.
///
/// ```swift
/// var samples = ExplorationSamples()
/// samples.forms["userIsLoggedIn"] = ["name": "Ada"]          // valid input for the login form
/// samples.deepLinks["/orders/{id}"] = ["/orders/A-1001"]        // a URL the route serves
/// ```
public struct ExplorationSamples: Sendable {
    /// Valid input for the forms that send a step, by the step's name: field name → value.
    /// Fields not given are filled from the form itself (its `value`), else with `1` for
    /// numbers, an address for e-mail fields and `sample` for text.
    public var forms: [String: [String: String]]
    /// URLs to try for a deep-link route, by its pattern. A route not given is tried at its
    /// `sampleURL` (FlowWeb's `DeepLinkRoute`); an empty list skips it (and its check).
    public var deepLinks: [String: [String]]
    /// Paths whose links the explorer does not follow (they show no page of the app's flows).
    public var skippedPaths: [String]

    /// Samples.
    public init(
        forms: [String: [String: String]] = [:], deepLinks: [String: [String]] = [:],
        skippedPaths: [String] = ["/public/", "/api/", "/_inspector", "/_events", "/metrics", "/healthz"]
    ) {
        self.forms = forms
        self.deepLinks = deepLinks
        self.skippedPaths = skippedPaths
    }
}
