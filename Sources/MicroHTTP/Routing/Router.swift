/// Routes requests by method and path pattern; answers `404` when no pattern matches the
/// path and `405` with `Allow` when patterns match the path but not the method. `HEAD` is
/// answered by the `GET` route when there is no `HEAD` route.
///
/// Patterns are matched segment by segment on the decoded path: a literal (`movies`), a
/// parameter (`{id}`), or a final `**` that takes the rest of the path. Earlier routes win.
///
/// ```swift
/// var router = Router()
/// router.add(.get, "/healthz") { _, _ in .text("ok") }
/// router.add(.get, "/movies/{id}") { _, parameters in .text("movie \(parameters["id"]!)") }
/// router.add(.get, "/public/**", responder: StaticFiles(directory: "Public"))
/// router.add(SearchRoutes())
/// ```
///
/// Each route may carry a label given where it is registered — what metrics count its requests
/// under (``label(for:)``); ``add(_:label:)`` gives one to every route of a collection that has
/// none of its own.
///
/// A route added with a responder keeps that responder's ``HTTPResponder/immediateResponse(to:)``
/// and ``HTTPResponder/answerLater(to:answer:)``: the router answers immediately, or later with no
/// task, whenever the matched route does, so mounting a responder under a router keeps its fast
/// paths.
public struct Router: HTTPResponder {
    /// The handler of a route: the request and the values of the pattern's parameters.
    public typealias Handler = @Sendable (Request, RouteParameters) async -> Response
    /// A route's answer when it is ready without waiting, or `nil` (see
    /// ``HTTPResponder/immediateResponse(to:)``).
    public typealias ImmediateHandler = @Sendable (Request, RouteParameters) -> Response?
    /// A route's answer given later, with no task (see ``HTTPResponder/answerLater(to:answer:)``):
    /// `true` when it will call the closure it is given.
    public typealias LaterHandler =
        @Sendable (Request, RouteParameters, @escaping @Sendable (Response) -> Void) -> Bool
    /// The answer to a path that routes match only with other methods; `allow` lists those
    /// methods for the `Allow` header (`"GET, HEAD"`).
    public typealias MethodNotAllowed = @Sendable (_ request: Request, _ allow: String) -> Response

    private struct Route: Sendable {
        /// `nil`: any method (a fallback for a part of the site).
        var method: HTTPMethod?
        var pattern: RoutePattern
        var handler: Handler
        var immediate: ImmediateHandler?
        var later: LaterHandler? = nil
        var label: String?
    }

    private var routes: [Route] = []
    private let notFound: @Sendable (Request) async -> Response
    private let methodNotAllowed: MethodNotAllowed
    private let rejected: (@Sendable (RequestRejection) -> Response)?

    /// An empty router. `notFound` answers paths that no route matches, `methodNotAllowed` paths
    /// that routes match only with other methods, and `rejected` requests the server refused
    /// before routing (``HTTPResponder/response(for:)``); plain text by default.
    public init(
        notFound: @escaping @Sendable (Request) async -> Response = { request in
            .text("Not found: \(request.path)", status: .notFound)
        },
        methodNotAllowed: @escaping MethodNotAllowed = { request, allow in
            var response = Response.text(
                "Method \(request.method) is not allowed for \(request.path); allowed: \(allow)",
                status: .methodNotAllowed)
            response.headers["Allow"] = allow
            return response
        },
        rejected: (@Sendable (RequestRejection) -> Response)? = nil
    ) {
        self.notFound = notFound
        self.methodNotAllowed = methodNotAllowed
        self.rejected = rejected
    }

    /// Adds a route, with `label` for its metrics; `immediate`, when given, answers it without a
    /// task when it can, and `later`, when given, answers it later without a task when it can.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, label: String? = nil, immediate: ImmediateHandler? = nil,
        later: LaterHandler? = nil, handler: @escaping Handler
    ) {
        routes.append(
            Route(
                method: method, pattern: RoutePattern(pattern), handler: handler, immediate: immediate, later: later,
                label: label))
    }

    /// Adds a route answered by another responder, its immediate and later answers included.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, label: String? = nil, responder: some HTTPResponder
    ) {
        add(
            method, pattern, label: label, immediate: { request, _ in responder.immediateResponse(to: request) },
            later: { request, _, answer in responder.answerLater(to: request, answer: answer) }
        ) { request, _ in await responder.respond(to: request) }
    }

    /// Adds a route for every method: what answers a part of the site (`/api/**`) that the routes
    /// before it do not. It owns that part: a path that an earlier route matches with another
    /// method is `405`, and no route after it is tried there.
    public mutating func addForAnyMethod(_ pattern: String, label: String? = nil, handler: @escaping Handler) {
        routes.append(
            Route(method: nil, pattern: RoutePattern(pattern), handler: handler, immediate: nil, label: label))
    }

    /// Adds the routes of `collection`; those it gives no label get `label`.
    public mutating func add(_ collection: some RouteCollection, label: String? = nil) {
        guard let label else { return collection.register(on: &self) }
        labeling(label) { collection.register(on: &$0) }
    }

    /// Gives `label` to every route added by `register` that has none of its own.
    public mutating func labeling(_ label: String, _ register: (inout Router) -> Void) {
        let first = routes.count
        register(&self)
        for index in first..<routes.count where routes[index].label == nil { routes[index].label = label }
    }

    /// The label of the route that answers `request` (see ``add(_:_:label:immediate:later:handler:)``);
    /// `nil` when none does or it has none.
    public func label(for request: Request) -> String? {
        guard case .route(let index, _) = resolve(request) else { return nil }
        return routes[index].label
    }

    public func respond(to request: Request) async -> Response {
        switch resolve(request) {
        case .route(let index, let parameters): return await routes[index].handler(request, parameters)
        case .methodNotAllowed(let allow): return methodNotAllowed(request, allow)
        case .notFound: return await notFound(request)
        }
    }

    public func immediateResponse(to request: Request) -> Response? {
        guard case .route(let index, let parameters) = resolve(request) else { return nil }
        return routes[index].immediate?(request, parameters)
    }

    public func answerLater(to request: Request, answer: @escaping @Sendable (Response) -> Void) -> Bool {
        guard case .route(let index, let parameters) = resolve(request) else { return false }
        return routes[index].later?(request, parameters, answer) ?? false
    }

    public func response(for rejection: RequestRejection) -> Response {
        rejected?(rejection) ?? .text(rejection.message, status: rejection.status)
    }

    private enum Resolution {
        /// The index of the route in `routes` (not a copy of it: copying retains its closures,
        /// atomically, on every request and from every thread).
        case route(Int, RouteParameters)
        case methodNotAllowed(String)
        case notFound
    }

    private func resolve(_ request: Request) -> Resolution {
        let path = request.pathSegments
        var allowed: [HTTPMethod] = []
        // By index, so that routes that do not match are not copied (each copy retains closures).
        let first = path.first
        for index in routes.indices
        where routes[index].pattern.mayMatch(first: first) && routes[index].pattern.matches(path) {
            guard let method = routes[index].method else {
                // A fallback owns its part of the site: no route after it answers there.
                if allowed.isEmpty { return found(index, path) }
                break
            }
            if method == request.method || (request.method == .head && method == .get && !hasRoute(.head, for: path)) {
                return found(index, path)
            }
            allowed.append(method)
            if method == .get { allowed.append(.head) }
        }
        if allowed.isEmpty { return .notFound }
        var seen = Set<HTTPMethod>()
        return .methodNotAllowed(allowed.filter { seen.insert($0).inserted }.map(\.rawValue).joined(separator: ", "))
    }

    private func found(_ index: Int, _ path: [String]) -> Resolution {
        .route(index, RouteParameters(routes[index].pattern, path))
    }

    /// Whether a route matches `request`'s path, with any method.
    public func hasRoute(for request: Request) -> Bool {
        routes.contains { $0.pattern.matches(request.pathSegments) }
    }

    private func hasRoute(_ method: HTTPMethod, for path: [String]) -> Bool {
        routes.contains { $0.method == method && $0.pattern.matches(path) }
    }
}

/// A set of routes registered together: the routes of one feature (FlowWeb's pages, its API, an
/// app's webhooks), added to a ``Router`` with ``Router/add(_:label:)``.
///
/// ```swift
/// struct SearchRoutes: RouteCollection {
///     func register(on router: inout Router) {
///         router.add(.get, "/search.json") { request, _ in .text("[]") }
///     }
/// }
/// ```
public protocol RouteCollection {
    /// Adds this collection's routes to `router`.
    func register(on router: inout Router)
}

/// The parameter values a route pattern captured, by name; `**` is captured as `"**"` with
/// the rest of the path joined by `/`. Read on demand: matching a route copies nothing.
public struct RouteParameters: Sendable {
    private let pattern: RoutePattern
    private let path: [String]

    init(_ pattern: RoutePattern, _ path: [String]) {
        self.pattern = pattern
        self.path = path
    }

    /// The captured values.
    public var values: [String: String] {
        var values: [String: String] = [:]
        for (index, segment) in pattern.segments.enumerated() {
            switch segment {
            case .literal: continue
            case .parameter(let name, _): values[name] = path[index]
            case .rest: values["**"] = rest(from: index)
            }
        }
        return values
    }

    /// The integer captured for `name`, when it is one.
    public func int(_ name: String) -> Int? {
        self[name].flatMap { Int($0) }
    }

    /// The value captured for `name`.
    public subscript(name: String) -> String? {
        for (index, segment) in pattern.segments.enumerated() {
            switch segment {
            case .parameter(name, _): return path[index]
            case .rest where name == "**": return rest(from: index)
            default: continue
            }
        }
        return nil
    }

    private func rest(from index: Int) -> String { path[min(index, path.count)...].joined(separator: "/") }
}

/// A parsed route pattern such as `/movies/{id}`, `/movies/{id:int}` or `/public/**`: literal
/// segments, parameters (`{name}`: any non-empty segment; `{name:int}`: an integer written the
/// canonical way, `42` but not `042`), and a final `**` that takes the rest of the path. What
/// ``Router`` matches paths with, and FlowWeb's deep links too.
public struct RoutePattern: Sendable {
    /// One segment of a pattern.
    public enum Segment: Sendable, Equatable {
        /// A segment that must be this text.
        case literal(String)
        /// A parameter: any non-empty segment, or with `integer` an integer.
        case parameter(String, integer: Bool)
        /// The rest of the path (`**`, last).
        case rest
    }

    /// The pattern as written.
    public let text: String
    /// The pattern's segments.
    public let segments: [Segment]
    /// The first segment when it is a literal: a path whose first segment differs cannot match,
    /// which ``mayMatch(first:)`` tells without walking the pattern.
    private let firstLiteral: String?

    /// The pattern `text` parsed.
    public init(_ text: String) {
        var segments: [Segment] = []
        for piece in text.split(separator: "/", omittingEmptySubsequences: true) {
            if piece == "**" {
                segments.append(.rest)
            } else if piece.hasPrefix("{"), piece.hasSuffix("}") {
                let parts = piece.dropFirst().dropLast().split(separator: ":", maxSplits: 1)
                let name = parts.first.map(String.init) ?? ""
                segments.append(.parameter(name, integer: parts.count == 2 && parts[1] == "int"))
            } else {
                segments.append(.literal(String(piece)))
            }
        }
        self.text = text
        self.segments = segments
        if case .literal(let text) = segments.first { firstLiteral = text } else { firstLiteral = nil }
    }

    /// `false` when a path starting with `first` cannot match (a quick test before ``matches(_:)``).
    @inline(__always)
    func mayMatch(first: String?) -> Bool {
        guard let firstLiteral else { return true }
        return first == firstLiteral
    }

    /// Whether `path` (decoded segments) has this pattern's shape.
    public func matches(_ path: [String]) -> Bool {
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                return true
            case .literal(let text):
                guard index < path.count, path[index] == text else { return false }
            case .parameter(_, let integer):
                guard index < path.count, !path[index].isEmpty else { return false }
                if integer {
                    guard let number = Int(path[index]), String(number) == path[index] else { return false }
                }
            }
        }
        return path.count == segments.count
    }

    /// The parameters' values when `path` matches; `nil` otherwise.
    public func match(_ path: [String]) -> RouteParameters? {
        matches(path) ? RouteParameters(self, path) : nil
    }
}
