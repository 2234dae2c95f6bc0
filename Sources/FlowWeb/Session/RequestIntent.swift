import MicroHTTP

/// Whether a request to a page or step URL is a person navigating — the only kind that may change
/// a session (Docs/CONTRACT.md §2). Link checkers and monitors send `HEAD`; browsers fetch pages
/// ahead of a click (prefetch, prerender) and load URLs that are not navigations (`fetch()`,
/// `<img>`, `<iframe>`, told by Fetch Metadata).
enum RequestIntent: Equatable, Sendable {
    /// A navigation: it may move the tree. A request without Fetch Metadata (curl, API tools,
    /// older browsers) counts as one.
    case navigation
    /// `HEAD`, or a `GET` that is no navigation of the browser's window (`Sec-Fetch-Mode` other than
    /// `navigate`, or `Sec-Fetch-Dest` other than `document`: `fetch()`, `<img>`, an `<iframe>`):
    /// answered as the navigation would be, worked out on a copy of the session, which is not
    /// changed, stored or renewed.
    case look
    /// A speculative load (`Sec-Purpose: prefetch`, `prefetch;prerender`, `Purpose: prefetch`,
    /// Turbo's `X-Sec-Purpose: prefetch`, Safari's `X-Purpose: preview`, Firefox's
    /// `X-Moz: prefetch`): declined with `403`, so the browser keeps nothing to show for the later
    /// navigation (Chromium keeps no prefetch whose status is an error), which then reaches the
    /// server.
    case speculation

    /// The intent of `request`, read in one pass over its headers.
    init(_ request: Request) {
        var speculative = false
        var fetchMode: String?
        var fetchDestination: String?
        request.headers.forEachField { name, value in
            switch name.utf8.count {
            case 5 where Self.named(name, "x-moz"), 7 where Self.named(name, "purpose"),
                9 where Self.named(name, "x-purpose"), 11 where Self.named(name, "sec-purpose"),
                13 where Self.named(name, "x-sec-purpose"):
                let lowered = value.lowercased()
                speculative = speculative || lowered.contains("prefetch") || lowered.contains("preview")
            case 14 where Self.named(name, "sec-fetch-mode"):
                fetchMode = value.lowercased()
            case 14 where Self.named(name, "sec-fetch-dest"):
                fetchDestination = value.lowercased()
            default:
                break
            }
        }
        if speculative {
            self = .speculation
        } else if request.method == .head
            || (request.method == .get
                && (fetchMode.map { $0 != "navigate" } == true || fetchDestination.map { $0 != "document" } == true))
        {
            self = .look
        } else {
            self = .navigation
        }
    }

    /// Whether it may change the session.
    var changes: Bool { self == .navigation }

    /// The answer to a speculative load.
    static var declined: WebError {
        .forbidden(
            "Pages are not loaded ahead of a visit (prefetch, prerender): showing one changes the session. Follow the link instead."
        )
    }

    private static func named(_ name: String, _ expected: String) -> Bool {
        name.utf8.elementsEqual(expected.utf8) { ($0 | 0x20) == $1 }
    }
}
