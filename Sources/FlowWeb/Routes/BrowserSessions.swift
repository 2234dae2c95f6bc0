import FlowCore
import MicroHTTP

/// What an app's own routes (``WebRouteCollection``) may know of the browser session that sent a
/// request, and how they answer errors the way FlowWeb does: the one helper that reads the
/// session cookie and renders error pages, so no route writes that again.
public struct BrowserSessions<Step: FlowStep>: Sendable {
    private let context: FlowWebContext<Step>

    init(_ context: FlowWebContext<Step>) { self.context = context }

    /// The session of the browser that sent `request`, from its cookie: `nil` when it has no
    /// cookie, or its session expired or was deleted. Reading never creates, stores or renews a
    /// session.
    ///
    /// - Throws: ``WebError`` (`503`) when the store cannot be read.
    public func session(of request: Request) async throws(WebError) -> BrowserSession? {
        guard let loaded = try await context.resolver.resolve(request, .reading)?.session else { return nil }
        return BrowserSession(version: loaded.record.version, tree: loaded.tree)
    }

    /// Answers `request` with what `body` makes of its browser session (see
    /// ``session(of:)``); an error `body` throws becomes ``errorResponse(_:for:)``.
    public func respond(
        to request: Request, _ body: (BrowserSession?) async throws(WebError) -> Response
    ) async -> Response {
        do {
            return try await body(try await session(of: request))
        } catch {
            return errorResponse(error, for: request)
        }
    }

    /// `error` as FlowWeb answers it: `application/problem+json` for a client that accepts JSON
    /// and not HTML (and under `/api/`), an HTML page in the app's layout (the `error` template)
    /// otherwise.
    public func errorResponse(_ error: WebError, for request: Request) -> Response {
        context.errors.response(error, to: request)
    }
}

/// A browser's session as an app's route reads it: its navigation tree (what it shows) and its
/// app data, at one version.
public struct BrowserSession: Sendable {
    /// The session's version: `1` when new, one more with each change.
    public let version: Int
    /// The navigation tree; its `top` is the page the browser shows.
    public let tree: NavigationTree

    /// The session's app data, or `nil` when the app declared another type.
    public func appData<Data: AppData>(_ type: Data.Type = Data.self) -> Data? {
        tree.appData.as(Data.self)
    }
}
