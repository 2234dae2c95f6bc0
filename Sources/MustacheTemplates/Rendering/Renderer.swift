/// Renders compiled nodes into one growing byte buffer.
struct Renderer {
    /// Expansions of partials and parents deeper than this render nothing: data-driven
    /// recursion stops there instead of exhausting the stack.
    static let maximumDepth = 100

    let templates: [CompiledTemplate]
    var output: [UInt8] = []
    var stack: [TemplateValue]
    var indentation: [UInt8] = []
    var overrides: [String: [Node]] = [:]
    var depth = 0

    init(templates: [CompiledTemplate], context: TemplateValue, capacity: Int) {
        self.templates = templates
        self.stack = [context]
        output.reserveCapacity(capacity)
    }

    mutating func render(_ nodes: [Node]) {
        for node in nodes {
            switch node {
            case .text(let bytes, _):
                if indentation.isEmpty { output.append(contentsOf: bytes) } else { appendIndented(bytes) }
            case .variable(let path, let escaped):
                guard let value = lookUp(path) else { continue }
                interpolate(value, escaped: escaped)
            case .section(let path, let nodes, let inverted):
                let value = lookUp(path) ?? .null
                if inverted {
                    if !value.isTruthy { render(nodes) }
                } else {
                    renderSection(nodes, for: value)
                }
            case .partial(let reference, let indentation):
                expand(reference, indentation: indentation, overrides: nil)
            case .parent(let reference, let indentation, let overrides):
                expand(reference, indentation: indentation, overrides: overrides)
            case .block(let name, let defaults, let indentation):
                let nodes = overrides[name] ?? defaults
                if let indentation, !indentation.isEmpty {
                    let saved = self.indentation
                    self.indentation += indentation
                    render(nodes)
                    self.indentation = saved
                } else {
                    render(nodes)
                }
            }
        }
    }

    private mutating func renderSection(_ nodes: [Node], for value: TemplateValue) {
        switch value {
        case .null, .bool(false):
            return
        case .list(let items):
            for item in items {
                stack.append(item)
                render(nodes)
                stack.removeLast()
            }
        default:
            stack.append(value)
            render(nodes)
            stack.removeLast()
        }
    }

    /// Renders a partial (`overrides == nil`) or a parent: the template's nodes with its
    /// indentation added and, for a parent, its block overrides merged under the ones already in
    /// force (the outermost template's overrides win).
    private mutating func expand(_ reference: TemplateReference, indentation: [UInt8], overrides local: [String: [Node]]?) {
        guard let index = reference.index, depth < Self.maximumDepth else { return }
        let savedIndentation = self.indentation
        let savedOverrides = overrides
        self.indentation += indentation
        if let local, !local.isEmpty {
            overrides.merge(local) { current, _ in current }
        }
        depth += 1
        render(templates[index].nodes)
        depth -= 1
        self.indentation = savedIndentation
        overrides = savedOverrides
    }

    /// The value of `path`: its first name is searched from the innermost context outwards,
    /// the rest inside what was found.
    private func lookUp(_ path: KeyPath) -> TemplateValue? {
        switch path {
        case .implicit:
            return stack.last
        case .names(let first, let rest):
            var found: TemplateValue?
            for frame in stack.reversed() {
                if case .object(let fields) = frame, let value = fields[first] {
                    found = value
                    break
                }
            }
            guard var value = found else { return nil }
            for name in rest {
                guard case .object(let fields) = value, let next = fields[name] else { return nil }
                value = next
            }
            return value
        }
    }

    private mutating func interpolate(_ value: TemplateValue, escaped: Bool) {
        switch value {
        case .null, .list, .object:
            return
        case .string(var text):
            if text.isEmpty { return }
            beginLine()
            if escaped {
                HTMLEscaping.append(&text, to: &output)
            } else {
                text.withUTF8 { output.append(contentsOf: $0) }
            }
        case .int(let number):
            beginLine()
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            beginLine()
            output.append(contentsOf: Self.format(number).utf8)
        case .bool(let flag):
            beginLine()
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        }
    }

    private static func format(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }

    /// Writes the indentation when output is at the start of a line.
    private mutating func beginLine() {
        if !indentation.isEmpty, output.isEmpty || output.last == UInt8(ascii: "\n") {
            output.append(contentsOf: indentation)
        }
    }

    /// Writes `bytes`, indenting each line that has content (blank lines stay empty).
    private mutating func appendIndented(_ bytes: [UInt8]) {
        var start = 0
        while start < bytes.count {
            let end = (bytes[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? bytes.count
            let lineIsBlank = bytes[start] == UInt8(ascii: "\n") || (bytes[start] == UInt8(ascii: "\r") && end - start == 2)
            if !lineIsBlank { beginLine() }
            output.append(contentsOf: bytes[start..<end])
            start = end
        }
    }
}
