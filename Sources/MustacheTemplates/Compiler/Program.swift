/// Every template of a set flattened into one instruction array over shared tables. Operands
/// are plain integers, so the render loop copies no references; the program itself is one
/// immutable object, so a render retains it once.
final class Program: Sendable {
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

    /// A key path as a range of ``names``; an empty range is the implicit iterator `.`.
    struct Path: Sendable {
        var start: Int32
        var end: Int32
    }

    /// A block override: block name index and body range.
    struct Override: Sendable {
        var name: Int32
        var start: Int32
        var end: Int32
    }

    let instructions: [Instruction]
    let bytes: [UInt8]
    /// Variable and section names, each a range of ``names``.
    let paths: [Path]
    /// The names of every path, in order.
    let names: [KeyPath.Name]
    let indentations: [[UInt8]]
    let blockNames: [String]
    let overrideSets: [[Override]]
    /// Instruction range of each template, by template index.
    let templates: [Range<Int32>]

    /// Flattens linked templates (partials and parents already resolved to indices).
    init(_ templates: [[Node]]) {
        var emitter = Emitter()
        for nodes in templates {
            let start = Int32(emitter.instructions.count)
            emitter.emit(nodes)
            emitter.templates.append(start..<Int32(emitter.instructions.count))
        }
        instructions = emitter.instructions
        bytes = emitter.bytes
        paths = emitter.paths
        names = emitter.names
        indentations = emitter.indentations
        blockNames = emitter.blockNames
        overrideSets = emitter.overrideSets
        self.templates = emitter.templates
    }
}

/// Builds a ``Program``'s tables node by node.
private struct Emitter {
    var instructions: [Program.Instruction] = []
    var bytes: [UInt8] = []
    var paths: [Program.Path] = []
    var names: [KeyPath.Name] = []
    var indentations: [[UInt8]] = [[]]
    var blockNames: [String] = []
    var overrideSets: [[Program.Override]] = []
    var templates: [Range<Int32>] = []

    mutating func emit(_ nodes: [Node]) {
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
                var set: [Program.Override] = []
                for (name, body) in overrides.sorted(by: { $0.key < $1.key }) {
                    let start = Int32(instructions.count)
                    emit(body)
                    set.append(Program.Override(name: blockName(name), start: start, end: Int32(instructions.count)))
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
                instructions[at] = .block(
                    name: blockName(name), end: Int32(instructions.count), indentation: indentationIndex)
            }
        }
    }

    private mutating func add(_ path: KeyPath) -> Int32 {
        let start = Int32(names.count)
        if case .names(let first, let rest) = path {
            names.append(first)
            names += rest
        }
        paths.append(Program.Path(start: start, end: Int32(names.count)))
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
