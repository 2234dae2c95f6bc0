import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Authenticates every call of a generated `Client` as a session: `Authorization: Bearer <id>`,
/// the id `createSession` answers. (Bearer calls need no CSRF token.)
///
/// ```swift
/// let client = Client(serverURL: url, transport: URLSessionTransport(), middlewares: [BearerToken(session: id)])
/// ```
public struct BearerToken: ClientMiddleware {
    /// The session id.
    public var session: String

    /// A middleware sending `session` as the bearer token.
    public init(session: String) { self.session = session }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(session)"
        return try await next(request, body, baseURL)
    }
}
