/// A complete, linked set of templates: every partial and parent resolved, no unconditional
/// cycle. Immutable, so renders share it without locks (and a class, so handing it to a render
/// is one reference).
final class TemplateSet: Sendable {
    /// A template's source before compiling.
    struct Source: Sendable {
        var name: String
        var file: String
        var bytes: [UInt8]
    }

    let templates: [CompiledTemplate]
    let indexByName: [String: Int]
    let program: Program

    /// Compiles and links `sources`.
    ///
    /// - Throws: ``TemplateError`` for invalid UTF-8, syntax errors, unknown partials or parents
    ///   (unless `missingTemplates` is `.renderNothing`) and unconditional cycles.
    init(_ sources: [Source], missingTemplates: TemplateLibrary.MissingTemplates) throws(TemplateError) {
        var compiled: [(Source, [Node])] = []
        for source in sources {
            guard String(validating: source.bytes, as: UTF8.self) != nil else {
                let valid = Self.validPrefixLength(source.bytes)
                throw SourcePositions(file: source.file, source: source.bytes)
                    .error(at: valid, "the file is not valid UTF-8 (save it as UTF-8)")
            }
            compiled.append((source, try Parser.compile(source.bytes, file: source.file)))
        }
        var indexByName: [String: Int] = [:]
        for (index, entry) in compiled.enumerated() { indexByName[entry.0.name] = index }
        var templates: [CompiledTemplate] = []
        for (source, nodes) in compiled {
            let linker = Linker(indexByName: indexByName, source: source, missingTemplates: missingTemplates)
            templates.append(CompiledTemplate(name: source.name, file: source.file, nodes: try linker.link(nodes)))
        }
        try CycleCheck(templates: templates, sources: sources).run()
        self.templates = templates
        self.indexByName = indexByName
        program = Program(templates.map(\.nodes))
    }

    /// The offset of the first byte that is not part of a valid UTF-8 sequence.
    private static func validPrefixLength(_ bytes: [UInt8]) -> Int {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput, .error: return offset
            }
        }
    }
}

/// Resolves partial and parent names to template indices.
private struct Linker {
    let indexByName: [String: Int]
    let source: TemplateSet.Source
    let missingTemplates: TemplateLibrary.MissingTemplates

    func link(_ nodes: [Node]) throws(TemplateError) -> [Node] {
        var linked: [Node] = []
        linked.reserveCapacity(nodes.count)
        for node in nodes {
            switch node {
            case .text(let bytes, _):
                if case .text(let previous, _)? = linked.last {
                    linked[linked.count - 1] = .text(previous + bytes, startsLine: false)
                } else {
                    linked.append(.text(bytes, startsLine: false))
                }
            case .variable:
                linked.append(node)
            case .section(let path, let children, let inverted):
                linked.append(.section(path, try link(children), inverted: inverted))
            case .partial(let reference, let indentation):
                linked.append(.partial(try resolve(reference), indentation: indentation))
            case .parent(let reference, let indentation, let overrides):
                var linkedOverrides: [String: [Node]] = [:]
                for (name, content) in overrides { linkedOverrides[name] = try link(content) }
                linked.append(.parent(try resolve(reference), indentation: indentation, overrides: linkedOverrides))
            case .block(let name, let children, let indentation):
                linked.append(.block(name: name, try link(children), indentation: indentation))
            }
        }
        return linked
    }

    private func resolve(_ reference: TemplateReference) throws(TemplateError) -> TemplateReference {
        var resolved = reference
        resolved.index = indexByName[reference.name]
        if resolved.index == nil, missingTemplates == .error {
            let known = indexByName.keys.sorted().prefix(8).joined(separator: ", ")
            throw SourcePositions(file: source.file, source: source.bytes)
                .error(at: reference.offset, "unknown template \"\(reference.name)\" (known: \(known))")
        }
        return resolved
    }
}

/// Refuses templates that would expand themselves forever: a cycle of partials or parents
/// none of which sits inside a section or an overridable block.
private struct CycleCheck {
    let templates: [CompiledTemplate]
    let sources: [TemplateSet.Source]

    func run() throws(TemplateError) {
        var state = [Int](repeating: 0, count: templates.count)  // 0 new, 1 on path, 2 done
        var path: [(template: Int, reference: TemplateReference)] = []
        func visit(_ index: Int) throws(TemplateError) {
            state[index] = 1
            for reference in unconditionalReferences(templates[index].nodes) {
                guard let target = reference.index else { continue }
                path.append((index, reference))
                if state[target] == 1 {
                    let start = path.firstIndex { $0.template == target } ?? 0
                    let names = path[start...].map { templates[$0.template].name } + [templates[target].name]
                    let source = sources[index]
                    throw SourcePositions(file: source.file, source: source.bytes).error(
                        at: reference.offset,
                        "templates include each other forever: \(names.joined(separator: " → ")) (put the inclusion inside a section that ends)"
                    )
                }
                if state[target] == 0 { try visit(target) }
                path.removeLast()
            }
            state[index] = 2
        }
        for index in templates.indices where state[index] == 0 { try visit(index) }
    }

    private func unconditionalReferences(_ nodes: [Node]) -> [TemplateReference] {
        nodes.flatMap { node -> [TemplateReference] in
            switch node {
            case .partial(let reference, _), .parent(let reference, _, _): [reference]
            default: []
            }
        }
    }
}
