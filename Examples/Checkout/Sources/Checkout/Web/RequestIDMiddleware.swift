import MicroHTTP

/// Gives every answer an `X-Request-ID`: the one the request came with (from a proxy that
/// assigns them), when it is a short token, or a new random one, so that a user's report and the
/// logs can be matched. Implements both paths, so pages keep FlowServer's fast path.
public struct RequestIDMiddleware: HTTPMiddleware {
    /// The middleware.
    public init() {}

    public func respond(to request: Request, next: some HTTPResponder) async -> Response {
        tagged(await next.respond(to: request), for: request)
    }

    public func immediateResponse(to request: Request, next: some HTTPResponder) -> Response? {
        next.immediateResponse(to: request).map { tagged($0, for: request) }
    }

    private func tagged(_ response: Response, for request: Request) -> Response {
        var response = response
        response.headers["X-Request-ID"] = Self.id(of: request)
        return response
    }

    /// The request's own id when it is 1–64 letters, digits, `-` or `_`; a new one otherwise.
    static func id(of request: Request) -> String {
        if let given = request.headers["X-Request-ID"], (1...64).contains(given.utf8.count),
            given.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            })
        {
            return given
        }
        var generator = SystemRandomNumberGenerator()
        return String(generator.next(), radix: 16) + String(generator.next(), radix: 16)
    }
}
