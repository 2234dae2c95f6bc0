/// Builds the node tree of one template from its standalone-processed items: matches sections,
/// collects block overrides inside parents, and dedents standalone blocks.
struct Parser {
    let source: [UInt8]
    let positions: SourcePositions

    private struct Frame {
        var tag: Tag
        var standalone: Bool
        var indentation: [UInt8]
        var firstItem: Int
        var nodes: [Node] = []
    }

    /// Compiles `source` (named `file` in errors).
    static func compile(_ source: [UInt8], file: String) throws(TemplateError) -> [Node] {
        let positions = SourcePositions(file: file, source: source)
        let tokens = try Tokenizer(source: source, positions: positions).tokenize()
        let items = StandaloneLines.process(tokens, source: source)
        return try Parser(source: source, positions: positions).build(items)
    }

    func build(_ items: [Item]) throws(TemplateError) -> [Node] {
        var root: [Node] = []
        var frames: [Frame] = []
        func append(_ node: Node) {
            if frames.isEmpty { root.append(node) } else { frames[frames.count - 1].nodes.append(node) }
        }
        for (index, item) in items.enumerated() {
            switch item {
            case .text(let range, let startsLine):
                append(.text(Array(source[range]), startsLine: startsLine))
            case .tag(let tag, let standalone, let indentation, _):
                switch tag.kind {
                case .comment, .delimiters:
                    continue
                case .variable, .unescaped:
                    append(.variable(try path(tag), escaped: tag.kind == .variable))
                case .partial:
                    append(
                        .partial(
                            TemplateReference(name: tag.name, offset: tag.start),
                            indentation: standalone ? indentation : []))
                case .section, .inverted, .parent, .block:
                    if tag.kind != .parent && tag.kind != .block { _ = try path(tag) }
                    frames.append(
                        Frame(tag: tag, standalone: standalone, indentation: indentation, firstItem: index + 1))
                case .close:
                    guard let frame = frames.popLast() else {
                        throw positions.error(
                            at: tag.start, "{{/\(tag.name)}} closes nothing: no section \"\(tag.name)\" is open")
                    }
                    guard frame.tag.name == tag.name else {
                        throw positions.error(
                            at: tag.start,
                            "{{/\(tag.name)}} does not match the open \"\(frame.tag.name)\" (opened at \(location(frame.tag.start))); close it with {{/\(frame.tag.name)}}"
                        )
                    }
                    append(try close(frame, items: items[frame.firstItem..<index]))
                }
            }
        }
        if let unclosed = frames.last {
            throw positions.error(
                at: unclosed.tag.start, "unclosed section \"\(unclosed.tag.name)\": add {{/\(unclosed.tag.name)}}")
        }
        return root
    }

    private func close(_ frame: Frame, items: ArraySlice<Item>) throws(TemplateError) -> Node {
        switch frame.tag.kind {
        case .section, .inverted:
            return .section(try path(frame.tag), frame.nodes, inverted: frame.tag.kind == .inverted)
        case .parent:
            var overrides: [String: [Node]] = [:]
            for case .block(let name, let nodes, _) in frame.nodes where overrides[name] == nil {
                overrides[name] = nodes
            }
            return .parent(
                TemplateReference(name: frame.tag.name, offset: frame.tag.start),
                indentation: frame.standalone ? frame.indentation : [], overrides: overrides)
        default:  // .block
            guard frame.standalone else { return .block(name: frame.tag.name, frame.nodes, indentation: nil) }
            let prefix = Self.commonIndentation(of: items, source: source)
            let nodes = prefix.isEmpty ? frame.nodes : frame.nodes.map { Self.dedent($0, by: prefix) }
            return .block(name: frame.tag.name, nodes, indentation: prefix.isEmpty ? frame.indentation : prefix)
        }
    }

    private func path(_ tag: Tag) throws(TemplateError) -> KeyPath {
        guard let path = KeyPath(tag.name) else {
            throw positions.error(
                at: tag.start, "invalid name \"\(tag.name)\": use \".\" or names separated by single dots")
        }
        return path
    }

    private func location(_ offset: Int) -> String {
        let error = positions.error(at: offset, "")
        return "\(error.line ?? 0):\(error.column ?? 0)"
    }

    /// The whitespace that every non-blank line of a block's content starts with.
    static func commonIndentation(of items: ArraySlice<Item>, source: [UInt8]) -> [UInt8] {
        var common: [UInt8]?
        func consider(_ candidate: ArraySlice<UInt8>) {
            guard let current = common else {
                common = Array(candidate)
                return
            }
            common = Array(zip(current, candidate).prefix { $0 == $1 }.map(\.0))
        }
        for item in items {
            switch item {
            case .text(let range, startsLine: true):
                let text = source[range]
                let whitespace = text.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                let rest = text.dropFirst(whitespace.count)
                if rest.isEmpty || rest.first == UInt8(ascii: "\n") || rest.first == UInt8(ascii: "\r") {
                    if rest.isEmpty, range.upperBound < source.count { consider(whitespace) }
                    continue
                }
                consider(whitespace)
            case .tag(_, let standalone, let indentation, startsLine: true):
                consider(standalone ? indentation[...] : [])
            default:
                continue
            }
        }
        return common ?? []
    }

    /// Removes `prefix` from the start of every line of `node`: line-starting text and the
    /// indentation of standalone partials, parents and blocks inside it.
    static func dedent(_ node: Node, by prefix: [UInt8]) -> Node {
        func strip(_ bytes: [UInt8]) -> [UInt8] {
            bytes.starts(with: prefix) ? Array(bytes.dropFirst(prefix.count)) : bytes
        }
        switch node {
        case .text(let bytes, startsLine: true):
            return .text(strip(bytes), startsLine: true)
        case .text, .variable:
            return node
        case .section(let path, let nodes, let inverted):
            return .section(path, nodes.map { dedent($0, by: prefix) }, inverted: inverted)
        case .partial(let reference, let indentation):
            return .partial(reference, indentation: strip(indentation))
        case .parent(let reference, let indentation, let overrides):
            return .parent(
                reference, indentation: strip(indentation),
                overrides: overrides.mapValues { $0.map { dedent($0, by: prefix) } })
        case .block(let name, let nodes, let indentation):
            return .block(name: name, nodes.map { dedent($0, by: prefix) }, indentation: indentation.map(strip))
        }
    }
}
