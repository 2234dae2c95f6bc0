import Foundation

/// Reading a rendered page the way a browser would use it: its links, and the hidden fields a
/// form sends back.
extension TestResponse {
    /// The `Location` header (where a `303` sends the browser).
    public var location: String? { header("Location") }

    /// The `href` of the first link whose tag or text contains `marker`, unescaped
    /// (`response.link(containing: "Add to cart")`).
    public func link(containing marker: String) -> String? {
        let html = text
        guard let range = html.range(of: marker),
            let tagStart = html[..<range.upperBound].range(of: "<a ", options: .backwards),
            let tagEnd = html[tagStart.upperBound...].firstIndex(of: ">"),
            let hrefStart = html[tagStart.upperBound..<tagEnd].range(of: "href=\"")
        else { return nil }
        let rest = html[hrefStart.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return Self.unescape(String(rest[..<end]))
    }

    /// The value of the first hidden input named `name` (`_from`, `_r`, `_csrf`).
    public func hidden(_ name: String) -> String? {
        let html = text
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { Self.unescape(String(rest[..<$0])) }
    }

    /// The hidden fields FlowWeb puts in a page's forms (`_from`, `_r`, `_csrf`), to send with a
    /// form's own fields: `browser.post("/_step", form: page.formFields + [("_step", "greet")])`.
    public var formFields: [(String, String)] {
        ["_from", "_r", "_csrf"].compactMap { name in hidden(name).map { (name, $0) } }
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&quot;", with: "\"")
    }
}

extension TestBrowser {
    /// Fetches `page` and follows (GETs) its link whose tag or text contains `marker`.
    @discardableResult
    public func follow(_ marker: String, on page: String) async throws -> TestResponse {
        let response = try await get(page)
        guard let link = response.link(containing: marker) else {
            throw TestConnectionError(description: "no link containing \(marker) on \(page)")
        }
        return try await get(link)
    }
}
