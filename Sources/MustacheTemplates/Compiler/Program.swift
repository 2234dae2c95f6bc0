/// Every template of a set flattened into one instruction array over shared tables. Operands
/// are plain integers, so the render loop copies no references.
struct Program: Sendable {
    /// One step of rendering; bodies follow their instruction and end at `end`.
    enum Instruction: Sendable {
        /// `count` static bytes from `start` in ``bytes``.
        case text(start: Int32, count: Int32)
        /// Interpolate ``paths``[`path`].
        case variable(path: Int32, escaped: Bool)
        /// A (possibly inverted) section over the body `pc+1 ..< end`.
        case section(path: Int32, end: Int32, inverted: Bool)
        /// Expand template `template` (-1: missing, renders nothing) with ``indentations``[`indentation`].
        case partial(template: Int32, indentation: Int32)
        /// Expand `template` with the overrides ``overrideSets``[`overrides`]; override bodies
        /// lie in `pc+1 ..< end`.
        case parent(template: Int32, indentation: Int32, overrides: Int32, end: Int32)
        /// A block named ``blockNames``[`name`] with default body `pc+1 ..< end`;
        /// `indentation` is -1 when the block is not standalone.
        case block(name: Int32, end: Int32, indentation: Int32)
    }

    /// A block override: block name index and body range.
    struct Override: Sendable {
        var name: Int32
        var start: Int32
        var end: Int32
    }

    var instructions: [Instruction] = []
    var bytes: [UInt8] = []
    var paths: [KeyPath] = []
    var indentations: [[UInt8]] = [[]]
    var blockNames: [String] = []
    var overrideSets: [[Override]] = []
    /// Instruction range of each template, by template index.
    var templates: [Range<Int32>] = []

    /// Flattens linked templates (partials and parents already resolved to indices).
    init(_ templates: [[Node]]) {
        for nodes in templates {
            let start = Int32(instructions.count)
            emit(nodes)
            self.templates.append(start..<Int32(instructions.count))
        }
    }

    private mutating func emit(_ nodes: [Node]) {
        for node in nodes {
            switch node {
            case .text(let text, _):
                guard !text.isEmpty else { continue }
                instructions.append(.text(start: Int32(bytes.count), count: Int32(text.count)))
                bytes += text
            case .variable(let path, let escaped):
                instructions.append(.variable(path: add(path), escaped: escaped))
            case .section(let path, let body, let inverted):
                let at = instructions.count
                instructions.append(.text(start: 0, count: 0))
                emit(body)
                instructions[at] = .section(path: add(path), end: Int32(instructions.count), inverted: inverted)
            case .partial(let reference, let indentation):
                instructions.append(.partial(template: Int32(reference.index ?? -1), indentation: add(indentation)))
            case .parent(let reference, let indentation, let overrides):
                let at = instructions.count
                instructions.append(.text(start: 0, count: 0))
                var set: [Override] = []
                for (name, body) in overrides.sorted(by: { $0.key < $1.key }) {
                    let start = Int32(instructions.count)
                    emit(body)
                    set.append(Override(name: blockName(name), start: start, end: Int32(instructions.count)))
                }
                overrideSets.append(set)
                instructions[at] = .parent(
                    template: Int32(reference.index ?? -1), indentation: add(indentation),
                    overrides: Int32(overrideSets.count - 1), end: Int32(instructions.count))
            case .block(let name, let body, let indentation):
                let at = instructions.count
                instructions.append(.text(start: 0, count: 0))
                emit(body)
                var indentationIndex: Int32 = -1
                if let indentation { indentationIndex = add(indentation) }
                instructions[at] = .block(name: blockName(name), end: Int32(instructions.count), indentation: indentationIndex)
            }
        }
    }

    private mutating func add(_ path: KeyPath) -> Int32 {
        paths.append(path)
        return Int32(paths.count - 1)
    }

    private mutating func add(_ indentation: [UInt8]) -> Int32 {
        if indentation.isEmpty { return 0 }
        indentations.append(indentation)
        return Int32(indentations.count - 1)
    }

    private mutating func blockName(_ name: String) -> Int32 {
        if let index = blockNames.firstIndex(of: name) { return Int32(index) }
        blockNames.append(name)
        return Int32(blockNames.count - 1)
    }
}
