import FlowServer

/// Gives every answer an `X-Request-ID`: the one the request came with (from a proxy that
/// assigns them), when it is a short token, or a new random one, so that a user's report and the
/// logs can be matched. Its work never waits, so it is a `SynchronousMiddleware`, and pages keep
/// FlowServer's fast path.
public struct RequestIDMiddleware: SynchronousMiddleware {
    /// The middleware.
    public init() {}

    /// Gives `response` the request's id.
    public func after(_ response: inout Response, to request: Request, from start: Void) {
        response.headers["X-Request-ID"] = Self.id(of: request)
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
