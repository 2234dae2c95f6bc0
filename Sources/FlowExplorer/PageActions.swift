import Foundation
import MicroHTTP

/// The links and forms of a rendered page, read from its HTML as a browser would offer them.
struct PageActions {
    /// A form as a browser would send it: its action and fields, one submit button pressed.
    struct Submission: Hashable {
        var action: String
        var fields: [FormField]
        /// The step the form sends (`_step`), when it names one.
        var step: String?
    }

    /// The `href` of every link, in order, unescaped.
    var links: [String] = []
    /// Each POST form, once with valid sample input and once with its text fields empty, for
    /// each of its submit buttons.
    var submissions: [Submission] = []

    /// The actions of `html`, leaving out what is `inert` (the page under a modal); valid input
    /// from `samples` (by step name) where given.
    init(html: String, samples: [String: [String: String]]) {
        let html = Self.withoutInert(html)
        for match in Self.matches(#"<a\b[^>]*?\bhref="([^"]*)""#, in: html) {
            links.append(Self.unescaped(match[1]))
        }
        for match in Self.matches(#"<form\b([^>]*)>([\s\S]*?)</form>"#, in: html) {
            let attributes = Self.attributes(match[1])
            guard attributes["method"]?.lowercased() == "post" else { continue }
            submissions += Self.submissions(
                action: attributes["action"] ?? "", body: match[2], samples: samples)
        }
    }

    /// The form's submissions: for each submit button (or none), valid input and empty input.
    private static func submissions(action: String, body: String, samples: [String: [String: String]])
        -> [Submission]
    {
        var fixed: [(String, String)] = []
        var text: [(name: String, type: String, value: String)] = []
        var buttons: [(String, String)] = []
        for match in matches(#"<(input|button)\b([^>]*)>"#, in: body) {
            let attributes = attributes(match[2])
            let type = attributes["type"]?.lowercased() ?? (match[1] == "button" ? "submit" : "text")
            guard let name = attributes["name"], attributes["disabled"] == nil else {
                if type == "submit" { buttons.append(("", "")) }
                continue
            }
            let value = attributes["value"] ?? ""
            switch type {
            case "hidden": fixed.append((name, value))
            case "submit": buttons.append((name, value))
            case "button", "reset", "image", "file": continue
            case "checkbox": if attributes["checked"] != nil { fixed.append((name, value.isEmpty ? "on" : value)) }
            case "radio": if !fixed.contains(where: { $0.0 == name }) { fixed.append((name, value)) }
            default: text.append((name, type, value))
            }
        }
        for match in matches(#"<select\b([^>]*)>([\s\S]*?)</select>"#, in: body) {
            guard let name = attributes(match[1])["name"] else { continue }
            let options = matches(#"<option\b([^>]*)>([^<]*)"#, in: match[2])
            if let chosen = options.first(where: { attributes($0[1])["selected"] != nil }) ?? options.first {
                fixed.append((name, attributes(chosen[1])["value"] ?? chosen[2].trimmingCharacters(in: .whitespaces)))
            }
        }
        for match in matches(#"<textarea\b([^>]*)>([\s\S]*?)</textarea>"#, in: body) {
            guard let name = attributes(match[1])["name"] else { continue }
            text.append((name, "textarea", unescaped(match[2])))
        }
        if buttons.isEmpty { buttons = [("", "")] }
        var result: [Submission] = []
        for button in buttons {
            var base = fixed
            if !button.0.isEmpty { base.append(button) }
            let step = base.last { $0.0 == "_step" }?.1
            let given = step.flatMap { samples[$0] } ?? [:]
            let valid =
                (base + text.map { field in (field.name, given[field.name] ?? sample(field.type, field.value)) })
                .map { FormField(name: $0.0, value: $0.1) }
            let empty = (base + text.map { ($0.name, "") }).map { FormField(name: $0.0, value: $0.1) }
            result.append(Submission(action: action, fields: valid, step: step))
            if !text.isEmpty { result.append(Submission(action: action, fields: empty, step: step)) }
        }
        return result
    }

    /// `html` without the elements marked `inert` and what they hold: what a user cannot reach.
    static func withoutInert(_ html: String) -> String {
        var text = html
        while let start = text.range(
            of: #"<([a-zA-Z][a-zA-Z0-9]*)\b[^>]*\sinert(\s|=|>|/)"#, options: .regularExpression)
        {
            let tag = String(text[start].dropFirst().prefix { $0.isLetter || $0.isNumber })
            var depth = 0
            var cursor = start.lowerBound
            var end = text.endIndex
            if ["input", "img", "br", "hr", "meta", "link", "area", "source"].contains(tag.lowercased()) {
                end = text[start.lowerBound...].firstIndex(of: ">").map { text.index(after: $0) } ?? text.endIndex
                text.removeSubrange(start.lowerBound..<end)
                continue
            }
            while let next = text.range(
                of: "</?\(tag)\\b[^>]*>", options: [.regularExpression, .caseInsensitive], range: cursor..<text.endIndex
            ) {
                depth += text[next].hasPrefix("</") ? -1 : 1
                cursor = next.upperBound
                if depth == 0 {
                    end = next.upperBound
                    break
                }
            }
            text.removeSubrange(start.lowerBound..<end)
        }
        return text
    }

    /// Input a field of `type` takes, its own `value` first.
    private static func sample(_ type: String, _ value: String) -> String {
        if !value.isEmpty { return value }
        switch type {
        case "number", "range": return "1"
        case "email": return "ada@example.com"
        case "url": return "https://example.com/"
        case "tel": return "+15550100"
        case "date": return "2026-01-01"
        default: return "sample"
        }
    }

    /// A tag's attributes, names lowercased, values unescaped; a name alone has an empty value.
    private static func attributes(_ text: String) -> [String: String] {
        var attributes: [String: String] = [:]
        for match in matches(#"([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?"#, in: text)
        {
            attributes[match[1].lowercased()] = unescaped(
                match[2].isEmpty ? (match[3].isEmpty ? match[4] : match[3]) : match[2])
        }
        return attributes
    }

    /// Every match of `pattern` in `text`, each as its groups (group 0 the whole match; an
    /// unmatched group empty).
    private static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let source = text as NSString
        return expression.matches(in: text, range: NSRange(location: 0, length: source.length)).map { result in
            (0..<result.numberOfRanges).map { index in
                let range = result.range(at: index)
                return range.location == NSNotFound ? "" : source.substring(with: range)
            }
        }
    }

    private static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&#x3D;", with: "=")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
