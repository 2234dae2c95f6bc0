/// One tag of a template, as written.
struct Tag {
    enum Kind: Equatable {
        case variable, unescaped, section, inverted, close, comment, partial, parent, block, delimiters
    }

    var kind: Kind
    var name: String
    /// Byte offsets of the whole tag, delimiters included.
    var start: Int
    var end: Int

    /// Whether the tag may stand alone on a line (its line then disappears from the output).
    var mayStandAlone: Bool { kind != .variable && kind != .unescaped }
    /// Whether the tag opens a section-like block that a close tag ends.
    var opens: Bool { [.section, .inverted, .parent, .block].contains(kind) }
}

/// A piece of a template: literal text or a tag.
enum Token {
    case text(Range<Int>)
    case tag(Tag)
}

/// Splits template source into text and tags, following set-delimiter tags as it goes.
struct Tokenizer {
    let source: [UInt8]
    let positions: SourcePositions

    func tokenize() throws(TemplateError) -> [Token] {
        var tokens: [Token] = []
        var open: [UInt8] = Array("{{".utf8)
        var close: [UInt8] = Array("}}".utf8)
        var index = 0
        var textStart = 0
        while index < source.count {
            guard matches(open, at: index) else {
                index += 1
                continue
            }
            if textStart < index { tokens.append(.text(textStart..<index)) }
            let tag = try readTag(at: index, open: open, close: close)
            if tag.kind == .delimiters {
                (open, close) = try parseDelimiters(tag)
            }
            tokens.append(.tag(tag))
            index = tag.end
            textStart = index
        }
        if textStart < source.count { tokens.append(.text(textStart..<source.count)) }
        return tokens
    }

    private func readTag(at start: Int, open: [UInt8], close: [UInt8]) throws(TemplateError) -> Tag {
        var contentStart = start + open.count
        var closing = close
        var kind = Tag.Kind.variable
        if open == Array("{{".utf8), contentStart < source.count, source[contentStart] == UInt8(ascii: "{") {
            kind = .unescaped
            contentStart += 1
            closing = Array("}".utf8) + close
        }
        guard let contentEnd = find(closing, from: contentStart) else {
            throw positions.error(
                at: start,
                "unclosed tag: no \(String(decoding: closing, as: UTF8.self)) after this \(String(decoding: open, as: UTF8.self))"
            )
        }
        var content = Substring(String(decoding: source[contentStart..<contentEnd], as: UTF8.self))
        content = content.trimmingWhitespace()
        if kind == .variable, let sigil = content.first {
            let kinds: [Character: Tag.Kind] = [
                "#": .section, "^": .inverted, "/": .close, "!": .comment, ">": .partial, "<": .parent,
                "$": .block, "=": .delimiters, "&": .unescaped,
            ]
            if let found = kinds[sigil] {
                kind = found
                content = content.dropFirst()
                if kind == .delimiters {
                    guard content.last == "=" else {
                        throw positions.error(at: start, "a set-delimiter tag must end with = (like {{=<% %>=}})")
                    }
                    content = content.dropLast()
                }
                content = content.trimmingWhitespace()
            }
        }
        let tag = Tag(kind: kind, name: String(content), start: start, end: contentEnd + closing.count)
        if kind != .comment && kind != .delimiters {
            guard !content.isEmpty else { throw positions.error(at: start, "empty tag name") }
            guard !content.contains(where: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else {
                throw positions.error(at: start, "invalid tag name \"\(content)\": names contain no spaces")
            }
        }
        return tag
    }

    private func parseDelimiters(_ tag: Tag) throws(TemplateError) -> ([UInt8], [UInt8]) {
        let parts = tag.name.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 2, !parts.contains(where: { $0.contains("=") }) else {
            throw positions.error(
                at: tag.start, "invalid delimiters \"\(tag.name)\": give two delimiters without =, like {{=<% %>=}}")
        }
        return (Array(parts[0].utf8), Array(parts[1].utf8))
    }

    private func matches(_ pattern: [UInt8], at index: Int) -> Bool {
        guard index + pattern.count <= source.count else { return false }
        for offset in 0..<pattern.count where source[index + offset] != pattern[offset] { return false }
        return true
    }

    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + pattern.count <= source.count {
            if matches(pattern, at: index) { return index }
            index += 1
        }
        return nil
    }
}

/// Line and column of byte offsets, for error messages.
struct SourcePositions {
    let file: String
    let lineStarts: [Int]

    init(file: String, source: [UInt8]) {
        self.file = file
        var starts = [0]
        for (index, byte) in source.enumerated() where byte == UInt8(ascii: "\n") { starts.append(index + 1) }
        lineStarts = starts
    }

    func error(at offset: Int, _ message: String) -> TemplateError {
        var line = 0
        while line + 1 < lineStarts.count && lineStarts[line + 1] <= offset { line += 1 }
        return TemplateError(file: file, line: line + 1, column: offset - lineStarts[line] + 1, message: message)
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}
