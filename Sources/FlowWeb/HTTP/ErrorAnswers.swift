import Logging
import MicroHTTP

/// The one rule that turns a ``WebError`` into an answer, for every handler of FlowWeb and of an
/// app's routes: `application/problem+json` for programs — the JSON API (`/api/…`), the live-tab
/// event stream (`/_events`) and any client that accepts JSON and not HTML — and an HTML page in
/// the app's layout (the `error` template) for everyone else, linking back to the page the
/// session shows when it is known.
///
/// The server's own failures (`500` and the other 5xx but `503`, which the store's health log
/// reports once an outage) are logged at `error` level, with the request's method and path, what
/// failed and a reference: whoever runs the server learns of a faulty template or a step that
/// cannot be encoded from the log, not from a visitor. The visitor's answer gives the reference
/// instead of what failed, which names the server's files and types (``WebError/withheld(reference:)``).
struct ErrorAnswers: Sendable {
    let composer: PageComposer
    let logger: Logger

    /// `error` as `request` is answered.
    func response(_ error: WebError, to request: Request, topURL: String? = nil) -> Response {
        var error = error
        if error.status.code >= 500, error.status != .serviceUnavailable {
            let reference = Hex.random(bytes: 4)
            logger.error(
                "request failed",
                metadata: [
                    "method": "\(request.method)", "path": "\(request.path)", "status": "\(error.status.code)",
                    "detail": "\(error.detail)", "reference": "\(reference)",
                ])
            error = error.withheld(reference: reference)
        }
        return Self.wantsProblem(request) ? error.problem : composer.errorPage(error, topURL: topURL)
    }

    /// A request the server refused before routing (a malformed or too large request), whose
    /// sender is unknown: an error page.
    func response(for rejection: RequestRejection) -> Response {
        let title = rejection.status == .contentTooLarge ? "Content too large" : "Bad request"
        return composer.errorPage(WebError(rejection.status, title, rejection.message), topURL: nil)
    }

    /// Whether `request` is answered with a problem document rather than an HTML page.
    static func wantsProblem(_ request: Request) -> Bool {
        switch request.pathSegments.first {
        case "api": return true
        case "_events" where request.pathSegments.count == 1: return true
        default:
            let accepted = request.headers["Accept"] ?? ""
            return accepted.contains("json") && !accepted.contains("html")
        }
    }
}
