import FlowCore
import MicroHTTP

/// A URL pattern that leads to a step (Docs/CONTRACT.md §2): `GET /movies/42` on a session whose tree
/// has no such page navigates `movieIsPicked(withId: 42)` up the responder chain.
///
/// Segments are literals or parameters, as the router's routes have them (MicroHTTP's
/// `RoutePattern`): `{id:int}` (an integer) or `{slug}` (any text).
///
/// ```swift
/// DeepLinkRoute("/movies/{id:int}") { values, services in
///     let id = values.int("id")!
///     return services[MovieCatalog.self]?.movie(id) == nil ? nil : .movieIsPicked(withId: id)
/// }
/// ```
/// The closure answers `nil` when the link leads nowhere (an unknown id): the answer is `404`.
public struct DeepLinkRoute<Step: FlowStep>: Sendable {
    /// The route's pattern, of the router's kind (MicroHTTP's `RoutePattern`).
    public let routePattern: RoutePattern
    let step: @Sendable (RouteValues, FlowContext) -> Step?

    /// A route; `step` builds the step from the matched values.
    public init(_ pattern: String, step: @escaping @Sendable (RouteValues, FlowContext) -> Step?) {
        routePattern = RoutePattern(pattern)
        self.step = step
    }

    /// The route's pattern, as written: `/movies/{id:int}`.
    public var pattern: String { routePattern.text }

    /// A URL the pattern matches: `1` for each integer parameter, `sample` for each text one
    /// (what the flow explorer tries when an app gives no samples of its own).
    public var sampleURL: String {
        "/"
            + routePattern.segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .parameter(_, integer: true): "1"
                case .parameter, .rest: "sample"
                }
            }.joined(separator: "/")
    }

    /// The values of the parameters when `path` (decoded segments) matches.
    func match(_ path: [String]) -> RouteValues? {
        routePattern.match(path).map(RouteValues.init)
    }
}

/// The parameter values a deep-link route matched.
public struct RouteValues: Sendable {
    let parameters: RouteParameters

    /// The integer parameter `name` (`{name:int}`).
    public func int(_ name: String) -> Int? { parameters.int(name) }
    /// The text parameter `name` (`{name}`).
    public func text(_ name: String) -> String? { parameters[name] }
}
