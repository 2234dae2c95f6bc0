import FlowCore

/// A URL pattern that leads to a step (Docs/CONTRACT.md §2): `GET /movies/42` on a session whose tree
/// has no such page navigates `movieIsPicked(withId: 42)` up the responder chain.
///
/// Segments are literals or typed parameters: `{id:int}` (an integer) or `{slug}` (any text).
///
/// ```swift
/// DeepLinkRoute("/movies/{id:int}") { values, services in
///     let id = values.int("id")!
///     return services[MovieCatalog.self]?.movie(id) == nil ? nil : .movieIsPicked(withId: id)
/// }
/// ```
/// The closure answers `nil` when the link leads nowhere (an unknown id): the answer is `404`.
public struct DeepLinkRoute<Step: FlowStep>: Sendable {
    enum Segment: Sendable {
        case literal(String)
        case int(String)
        case text(String)
    }

    /// The route's pattern, as written: `/movies/{id:int}`.
    public let pattern: String
    let segments: [Segment]
    let step: @Sendable (RouteValues, FlowContext) -> Step?

    /// A route; `step` builds the step from the matched values.
    public init(_ pattern: String, step: @escaping @Sendable (RouteValues, FlowContext) -> Step?) {
        self.pattern = pattern
        segments = pattern.split(separator: "/").map { piece in
            guard piece.hasPrefix("{"), piece.hasSuffix("}") else { return .literal(String(piece)) }
            let inner = piece.dropFirst().dropLast()
            let parts = inner.split(separator: ":", maxSplits: 1)
            let name = String(parts[0])
            return parts.count == 2 && parts[1] == "int" ? .int(name) : .text(name)
        }
        self.step = step
    }

    /// A URL the pattern matches: `1` for each integer parameter, `sample` for each text one
    /// (what the flow explorer tries when an app gives no samples of its own).
    public var sampleURL: String {
        "/"
            + segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .int: "1"
                case .text: "sample"
                }
            }.joined(separator: "/")
    }

    /// The values of the parameters when `path` (decoded segments) matches.
    func match(_ path: [String]) -> RouteValues? {
        guard path.count == segments.count else { return nil }
        var values = RouteValues()
        for (segment, piece) in zip(segments, path) {
            switch segment {
            case .literal(let text):
                guard piece == text else { return nil }
            case .int(let name):
                guard let number = Int(piece), String(number) == piece else { return nil }
                values.ints[name] = number
            case .text(let name):
                guard !piece.isEmpty else { return nil }
                values.texts[name] = piece
            }
        }
        return values
    }
}

/// The parameter values a deep-link route matched.
public struct RouteValues: Sendable {
    var ints: [String: Int] = [:]
    var texts: [String: String] = [:]

    /// The integer parameter `name` (`{name:int}`).
    public func int(_ name: String) -> Int? { ints[name] }
    /// The text parameter `name` (`{name}`).
    public func text(_ name: String) -> String? { texts[name] }
}
