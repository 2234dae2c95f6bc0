/// A compiled template: static byte runs and instructions, partials resolved to indices.
indirect enum Node: Sendable {
    /// Literal bytes. `startsLine` matters only while compiling (for block dedenting).
    case text([UInt8], startsLine: Bool)
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{&name}}` (raw).
    case variable(KeyPath, escaped: Bool)
    /// `{{#name}}…{{/name}}` or, inverted, `{{^name}}…{{/name}}`.
    case section(KeyPath, [Node], inverted: Bool)
    /// `{{>name}}`, indented when it stands alone on its line.
    case partial(TemplateReference, indentation: [UInt8])
    /// `{{<name}}…{{/name}}`: the parent template with block overrides.
    case parent(TemplateReference, indentation: [UInt8], overrides: [String: [Node]])
    /// `{{$name}}default{{/name}}`; `indentation` is set when the block stands alone.
    case block(name: String, [Node], indentation: [UInt8]?)
}

/// A template named by a partial or parent tag; `index` is filled in when all templates are
/// loaded (`nil` for a missing template rendered as nothing).
struct TemplateReference: Sendable {
    var name: String
    var index: Int?
    /// Where the tag is, for load-time errors.
    var offset: Int
}

/// A variable or section name split once at compile time: `.` or `a.b.c`.
/// Each name carries its ``TemplateObject/tag(_:)``, computed here once.
enum KeyPath: Sendable {
    case implicit
    case names(first: Name, rest: [Name])

    struct Name: Sendable {
        var text: String
        var tag: UInt32
        init(_ text: String) {
            self.text = text
            tag = TemplateObject.tag(text)
        }
    }

    init?(_ name: String) {
        if name == "." {
            self = .implicit
            return
        }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else { return nil }
        self = .names(first: Name(parts[0]), rest: parts.dropFirst().map(Name.init))
    }
}
