/// A token after standalone-line processing.
enum Item {
    case text(Range<Int>, startsLine: Bool)
    /// `indentation` is the whitespace that preceded a standalone tag on its (removed) line.
    case tag(Tag, standalone: Bool, indentation: [UInt8], startsLine: Bool)
}

/// Removes the lines of standalone tags, as the spec asks: a line holding only whitespace and
/// one tag that is not an interpolation (or two adjacent tags of a parent/block pair, such as
/// `{{<layout}}{{$content}}`) disappears from the output, and its whitespace becomes the tag's
/// indentation. A block opened and closed on one line keeps its line ending.
enum StandaloneLines {
    static func process(_ tokens: [Token], source: [UInt8]) -> [Item] {
        var items: [Item] = []
        for line in lines(of: tokens, source: source) {
            process(line, source: source, into: &items)
        }
        return items
    }

    private static func lines(of tokens: [Token], source: [UInt8]) -> [[Token]] {
        var lines: [[Token]] = [[]]
        for token in tokens {
            guard case .text(let range) = token else {
                lines[lines.count - 1].append(token)
                continue
            }
            var start = range.lowerBound
            for index in range where source[index] == UInt8(ascii: "\n") {
                lines[lines.count - 1].append(.text(start..<index + 1))
                lines.append([])
                start = index + 1
            }
            if start < range.upperBound { lines[lines.count - 1].append(.text(start..<range.upperBound)) }
        }
        return lines
    }

    private static func process(_ line: [Token], source: [UInt8], into items: inout [Item]) {
        let tags = line.compactMap { token -> Tag? in
            if case .tag(let tag) = token { return tag }
            return nil
        }
        var terminator: Range<Int>?
        if case .text(let range)? = line.last, source[range.upperBound - 1] == UInt8(ascii: "\n") {
            let crlf = range.count >= 2 && source[range.upperBound - 2] == UInt8(ascii: "\r")
            terminator = (range.upperBound - (crlf ? 2 : 1))..<range.upperBound
        }
        let onlyWhitespace = line.allSatisfy { token in
            guard case .text(let range) = token else { return true }
            let end =
                terminator.map { range.upperBound == $0.upperBound ? $0.lowerBound : range.upperBound }
                ?? range.upperBound
            return source[range.lowerBound..<max(range.lowerBound, end)].allSatisfy {
                $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t")
            }
        }
        let standalone =
            !tags.isEmpty && onlyWhitespace && tags.allSatisfy(\.mayStandAlone)
            && (tags.count == 1 || (tags.count == 2 && isPair(tags[0], tags[1])))
        guard standalone else {
            for (position, token) in line.enumerated() {
                switch token {
                case .text(let range): items.append(.text(range, startsLine: position == 0))
                case .tag(let tag):
                    items.append(.tag(tag, standalone: false, indentation: [], startsLine: position == 0))
                }
            }
            return
        }
        var indentation: [UInt8] = []
        if case .text(let range)? = line.first { indentation = Array(source[range]) }
        for (position, tag) in tags.enumerated() {
            items.append(
                .tag(tag, standalone: true, indentation: position == 0 ? indentation : [], startsLine: position == 0))
        }
        if tags.count == 2, tags[0].kind == .block, tags[1].kind == .close, let terminator {
            items.append(.text(terminator, startsLine: false))
        }
    }

    private static func isPair(_ first: Tag, _ second: Tag) -> Bool {
        guard first.end == second.start else { return false }
        switch (first.kind, second.kind) {
        case (.parent, .block), (.close, .close): return true
        case (.block, .close), (.parent, .close): return first.name == second.name
        default: return false
        }
    }
}
