/// Routes requests by method and path pattern; answers `404` when no pattern matches the
/// path and `405` with `Allow` when patterns match the path but not the method. `HEAD` is
/// answered by the `GET` route when there is no `HEAD` route.
///
/// Patterns are matched segment by segment on the decoded path: a literal (`movies`), a
/// parameter (`{id}`), or a final `**` that takes the rest of the path.
///
/// ```swift
/// var router = Router()
/// router.add(.get, "/healthz") { _, _ in .text("ok") }
/// router.add(.get, "/movies/{id}") { _, parameters in .text("movie \(parameters["id"]!)") }
/// router.add(.get, "/public/**", responder: StaticFiles(directory: "Public"))
/// ```
public struct Router: HTTPResponder {
    /// The handler of a route: the request and the values of the pattern's parameters.
    public typealias Handler = @Sendable (Request, RouteParameters) async -> Response

    private struct Route: Sendable {
        var method: HTTPMethod
        var pattern: RoutePattern
        var handler: Handler
    }

    private var routes: [Route] = []
    private var notFound: @Sendable (Request) async -> Response

    /// An empty router; `notFound` answers paths that no route matches (plain text by default).
    public init(
        notFound: @escaping @Sendable (Request) async -> Response = { request in
            .text("Not found: \(request.path)", status: .notFound)
        }
    ) {
        self.notFound = notFound
    }

    /// Adds a route; earlier routes win when several match.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, handler: @escaping Handler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), handler: handler))
    }

    /// Adds a route answered by another responder.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, responder: some HTTPResponder) {
        add(method, pattern) { request, _ in await responder.respond(to: request) }
    }

    public func respond(to request: Request) async -> Response {
        var allowed: [HTTPMethod] = []
        for route in routes {
            guard let parameters = route.pattern.match(request.pathSegments) else { continue }
            if route.method == request.method
                || (request.method == .head && route.method == .get && !hasRoute(.head, for: request))
            {
                return await route.handler(request, parameters)
            }
            allowed.append(route.method)
            if route.method == .get { allowed.append(.head) }
        }
        if allowed.isEmpty { return await notFound(request) }
        var seen = Set<HTTPMethod>()
        let allow = allowed.filter { seen.insert($0).inserted }.map(\.rawValue).joined(separator: ", ")
        var response = Response.text(
            "Method \(request.method) is not allowed for \(request.path); allowed: \(allow)",
            status: .methodNotAllowed)
        response.headers["Allow"] = allow
        return response
    }

    private func hasRoute(_ method: HTTPMethod, for request: Request) -> Bool {
        routes.contains { $0.method == method && $0.pattern.match(request.pathSegments) != nil }
    }
}

/// The parameter values a route pattern captured, by name; `**` is captured as `"**"` with
/// the rest of the path joined by `/`.
public struct RouteParameters: Sendable {
    /// The captured values.
    public var values: [String: String] = [:]

    /// The value captured for `name`.
    public subscript(name: String) -> String? { values[name] }
}

/// A parsed route pattern such as `/movies/{id}` or `/public/**`.
struct RoutePattern: Sendable {
    enum Segment: Sendable {
        case literal(String)
        case parameter(String)
        case rest
    }

    let segments: [Segment]

    init(_ pattern: String) {
        var segments: [Segment] = []
        for piece in pattern.split(separator: "/", omittingEmptySubsequences: true) {
            if piece == "**" {
                segments.append(.rest)
            } else if piece.hasPrefix("{"), piece.hasSuffix("}") {
                segments.append(.parameter(String(piece.dropFirst().dropLast())))
            } else {
                segments.append(.literal(String(piece)))
            }
        }
        self.segments = segments
    }

    func match(_ path: [String]) -> RouteParameters? {
        var parameters = RouteParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                parameters.values["**"] = path[min(index, path.count)...].joined(separator: "/")
                return parameters
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .parameter(let name):
                guard index < path.count, !path[index].isEmpty else { return nil }
                parameters.values[name] = path[index]
            }
        }
        return path.count == segments.count ? parameters : nil
    }
}
