import MicroHTTP

/// The security headers of every answer, set here and nowhere else: pages get a strict
/// Content-Security-Policy (FlowServer's pages load one script and one style sheet of their own
/// and nothing inline, so no nonce is needed), anti-framing, `nosniff`, a referrer policy and
/// opener isolation; every other answer the subset that applies to it. With secure cookies, every
/// answer also asks browsers to use HTTPS only (`Strict-Transport-Security`).
struct SecurityHeaders: Sendable {
    private let policy: String
    private let transportSecurity: Bool

    init(_ configuration: WebConfiguration) {
        policy = configuration.contentSecurityPolicy
        transportSecurity = configuration.secureCookies
    }

    /// The headers of an HTML page (pages, error pages, the inspector).
    var page: HTTPHeaders {
        var headers: HTTPHeaders = [
            "Content-Type": MediaType.html.description, "Cache-Control": "no-store", "Content-Security-Policy": policy,
            "X-Frame-Options": "DENY", "Cross-Origin-Opener-Policy": "same-origin",
        ]
        addCommon(to: &headers)
        return headers
    }

    /// Adds to `response` (not a page) the headers it lacks: `nosniff`, the referrer policy and,
    /// with secure cookies, transport security.
    func complete(_ response: inout Response) {
        guard response.headers["X-Content-Type-Options"] == nil || response.headers["Referrer-Policy"] == nil else {
            return
        }
        if response.headers["X-Content-Type-Options"] == nil {
            response.headers.add("X-Content-Type-Options", "nosniff")
        }
        if response.headers["Referrer-Policy"] == nil {
            response.headers.add("Referrer-Policy", "strict-origin-when-cross-origin")
        }
        if transportSecurity { response.headers.add("Strict-Transport-Security", "max-age=31536000") }
    }

    private func addCommon(to headers: inout HTTPHeaders) {
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("Referrer-Policy", "strict-origin-when-cross-origin")
        if transportSecurity { headers.add("Strict-Transport-Security", "max-age=31536000") }
    }
}
