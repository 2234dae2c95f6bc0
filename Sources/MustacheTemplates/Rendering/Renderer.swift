/// Runs a ``Program`` into one growing byte buffer.
///
/// The hot tables are read through buffer pointers that ``render(_:template:context:capacity:)``
/// holds open for the whole render, and context values are read in place through pointers (see
/// ``ValuePointer``), so the loop retains nothing.
struct Renderer: ~Copyable {
    /// Where a context value lives: inside the render's context, which the caller keeps alive and
    /// nobody mutates while it renders, so the array buffers holding its lists and fields stay
    /// where they are. Values are read in place, without a copy (and its retain and release).
    typealias ValuePointer = UnsafePointer<TemplateValue>

    /// Expansions of partials and parents deeper than this render nothing: data-driven
    /// recursion stops there instead of exhausting the stack.
    static let maximumDepth = 100
    /// The most work a render does; more ends it with ``Stop/Reason/work``. Each list item and
    /// each partial or parent expanded counts, before it runs, its instructions times the
    /// contexts a name may be searched in there (the depth of the context stack): what it costs
    /// at most, its own lists and partials aside, since each instruction runs once and each
    /// lookup searches at most that many contexts. Counted there, not at each lookup, the bound
    /// costs a page nothing measurable. 20 million is about what 16 MiB of output takes (a table
    /// of 300,000 rows of 20 instructions, three contexts deep). Depth alone does not bound the
    /// work: a partial that includes itself once per item of a list the context keeps finding
    /// expands 2¹⁰⁰ times (found by fuzzing: a hang), and each of its lookups searches a context
    /// stack hundreds deep.
    static let maximumWork = 20_000_000

    /// Why a render ended before its template did, and in which template.
    struct Stop: Error {
        /// The bound the render reached.
        enum Reason {
            /// It would have done more than ``Renderer/maximumWork``.
            case work
            /// Its output would have passed its limit in bytes.
            case output
        }

        /// The bound the render reached.
        let reason: Reason
        /// The number of the template rendering when it stopped.
        let template: Int
    }

    /// Renders template number `template` of `program` with `context` into at most `limit` bytes;
    /// `finish` makes the result from the output. Past `limit` bytes or ``maximumWork``, the
    /// render ends with a ``Stop`` instead.
    static func render<Output>(
        _ program: Program, template: Int, context: TemplateValue, capacity: Int, limit: Int,
        _ finish: (borrowing OutputBuffer) -> Output
    ) -> Result<Output, Stop> {
        program.instructions.withUnsafeBufferPointer { instructions in
            program.bytes.withUnsafeBufferPointer { bytes in
                program.paths.withUnsafeBufferPointer { paths in
                    program.names.withUnsafeBufferPointer { names in
                        withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(paths.count, 1)) { hints in
                            hints.initialize(repeating: 0)
                            let tables = Tables(
                                instructions: instructions, bytes: bytes, paths: paths, names: names,
                                hints: hints.baseAddress!)
                            return withUnsafePointer(to: context) { root in
                                var renderer = Renderer(
                                    program: program, tables: tables, context: root, capacity: capacity,
                                    limit: limit)
                                renderer.render(template: template)
                                renderer.noticeOverflow()
                                if let stop = renderer.stop { return .failure(stop) }
                                return .success(finish(renderer.output))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The program's hot tables, open for the whole render.
    struct Tables {
        let instructions: UnsafeBufferPointer<Program.Instruction>
        let bytes: UnsafeBufferPointer<UInt8>
        let paths: UnsafeBufferPointer<Program.Path>
        let names: UnsafeBufferPointer<KeyPath.Name>
        /// For each path, the field position its first name was last found at: objects built by
        /// one encoder share a field order, so the next lookup usually finds it there at once.
        let hints: UnsafeMutablePointer<Int32>
    }

    /// Unowned: the renderer lives only inside ``render(_:template:context:capacity:)``, whose
    /// caller holds the program; a counted reference wrote the shared program's reference count
    /// twice per render, from every thread that renders.
    unowned(unsafe) let program: Program
    let instructions: UnsafeBufferPointer<Program.Instruction>
    let bytes: UnsafeBufferPointer<UInt8>
    let paths: UnsafeBufferPointer<Program.Path>
    let names: UnsafeBufferPointer<KeyPath.Name>
    let hints: UnsafeMutablePointer<Int32>
    var output: OutputBuffer
    var stack: [ValuePointer]
    var indentation: [UInt8] = []
    /// Block overrides in force, innermost parent last; the first match from the front wins
    /// (the outermost template's overrides take precedence).
    var overrides: [Program.Override] = []
    var depth = 0
    /// The work done so far (see ``maximumWork``).
    var work = 0
    /// The number of the template rendering now.
    var current = 0
    /// Set when the render reached a bound: from then on nothing more is expanded or iterated.
    var stop: Stop?

    private init(program: Program, tables: Tables, context: ValuePointer, capacity: Int, limit: Int) {
        self.program = program
        instructions = tables.instructions
        bytes = tables.bytes
        paths = tables.paths
        names = tables.names
        hints = tables.hints
        stack = [context]
        stack.reserveCapacity(8)
        output = OutputBuffer(capacity: capacity, limit: limit)
    }

    private mutating func render(template: Int) {
        let range = program.templates[template]
        let outer = current
        current = template
        run(from: Int(range.lowerBound), to: Int(range.upperBound))
        current = outer
    }

    /// Counts the work of a list item or an expansion of `instructions` instructions about to
    /// run with one more context on the stack (see ``maximumWork``), and whether the render goes
    /// on: `false` once it reached a bound (noticed here).
    @inline(__always)
    private mutating func goesOn(running instructions: Int) -> Bool {
        work &+= instructions &* (stack.count + 1)
        if work > Self.maximumWork, stop == nil { stop = Stop(reason: .work, template: current) }
        noticeOverflow()
        return stop == nil
    }

    /// Records the output's overflow as the render's stop, in the template rendering now.
    @inline(__always)
    private mutating func noticeOverflow() {
        if output.overflowed, stop == nil { stop = Stop(reason: .output, template: current) }
    }

    private mutating func run(from start: Int, to end: Int) {
        var pc = start
        while pc < end {
            switch instructions[pc] {
            case .text(let offset, let count):
                appendStatic(Int(offset), Int(count))
                pc += 1
            case .variable(let path, let escaped):
                if let value = lookUp(Int(path)) { interpolate(value, escaped: escaped) }
                pc += 1
            case .section(let path, let bodyEnd, let inverted):
                let value = lookUp(Int(path))
                if inverted {
                    if !(value?.pointee.isTruthy ?? false) { run(from: pc + 1, to: Int(bodyEnd)) }
                } else if let value {
                    section(value, from: pc + 1, to: Int(bodyEnd))
                }
                pc = Int(bodyEnd)
            case .partial(let template, let indentation):
                expand(Int(template), indentation: Int(indentation), overrides: -1)
                pc += 1
            case .parent(let template, let indentation, let overrides, let bodyEnd):
                expand(Int(template), indentation: Int(indentation), overrides: Int(overrides))
                pc = Int(bodyEnd)
            case .block(let name, let bodyEnd, let indentation):
                var bodyStart = pc + 1
                var bodyStop = Int(bodyEnd)
                if let found = overrides.first(where: { $0.name == name }) {
                    bodyStart = Int(found.start)
                    bodyStop = Int(found.end)
                }
                if indentation > 0 {
                    let saved = self.indentation.count
                    self.indentation += program.indentations[Int(indentation)]
                    run(from: bodyStart, to: bodyStop)
                    self.indentation.removeSubrange(saved...)
                } else {
                    run(from: bodyStart, to: bodyStop)
                }
                pc = Int(bodyEnd)
            }
        }
    }

    private mutating func section(_ value: ValuePointer, from start: Int, to end: Int) {
        switch value.pointee {
        case .null, .bool(false):
            return
        case .list(let items):
            items.withUnsafeBufferPointer { items in
                guard let first = items.baseAddress else { return }
                for index in 0..<items.count {
                    guard goesOn(running: end - start) else { return }
                    stack.append(first + index)
                    run(from: start, to: end)
                    stack.removeLast()
                }
            }
        default:
            stack.append(value)
            run(from: start, to: end)
            stack.removeLast()
        }
    }

    /// Renders a partial (`overrides == -1`) or a parent: the template with its indentation added
    /// and, for a parent, its overrides placed after the ones already in force.
    private mutating func expand(_ template: Int, indentation: Int, overrides set: Int) {
        guard template >= 0, depth < Self.maximumDepth, goesOn(running: program.templates[template].count) else {
            return
        }
        let savedIndentation = self.indentation.count
        let savedOverrides = overrides.count
        if indentation > 0 { self.indentation += program.indentations[indentation] }
        if set >= 0 { overrides += program.overrideSets[set] }
        depth += 1
        render(template: template)
        depth -= 1
        self.indentation.removeSubrange(savedIndentation...)
        overrides.removeSubrange(savedOverrides...)
    }

    /// The value of a path: its first name is searched from the innermost context outwards,
    /// the rest inside what was found.
    @inline(__always)
    private func lookUp(_ path: Int) -> ValuePointer? {
        let range = paths[path]
        guard range.start < range.end else { return stack.last }
        let first = names[Int(range.start)]
        var found: ValuePointer?
        var index = stack.count - 1
        while index >= 0 {
            if case .object(let object) = stack[index].pointee,
                let value = object.valuePointer(forKey: first.text, tag: first.tag, hint: &hints[path])
            {
                found = value
                break
            }
            index -= 1
        }
        guard var value = found else { return nil }
        var next = Int(range.start) + 1
        while next < Int(range.end) {
            let name = names[next]
            var noHint: Int32 = 0
            guard case .object(let object) = value.pointee,
                let inner = object.valuePointer(forKey: name.text, tag: name.tag, hint: &noHint)
            else { return nil }
            value = inner
            next += 1
        }
        return value
    }

    @inline(__always)
    private mutating func interpolate(_ value: ValuePointer, escaped: Bool) {
        switch value.pointee {
        case .null, .list, .object:
            return
        case .string(let text):
            if text.isEmpty { return }
            beginLine()
            if text.utf8.withContiguousStorageIfAvailable({ appendText($0, escaped: escaped) }) == nil {
                var copy = text  // a bridged string without contiguous UTF-8
                copy.withUTF8 { appendText($0, escaped: escaped) }
            }
        case .int(let number):
            beginLine()
            appendDecimal(number)
        case .double(let number):
            beginLine()
            if number.rounded() == number, abs(number) < 1e15 {
                appendDecimal(Int(number))
            } else {
                output.append(Array(String(number).utf8))
            }
        case .bool(let flag):
            beginLine()
            output.append(flag ? "true" : "false")
        }
    }

    @inline(__always)
    private mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>, escaped: Bool) {
        if escaped { output.appendEscaped(bytes) } else { output.append(bytes) }
    }

    private mutating func appendDecimal(_ number: Int) {
        guard number >= 0 else {
            output.append(Array(String(number).utf8))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var value = number
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            output.append(UnsafeBufferPointer(rebasing: buffer[position...]))
        }
    }

    private mutating func appendStatic(_ start: Int, _ count: Int) {
        let run = UnsafeBufferPointer(rebasing: bytes[start..<start + count])
        if indentation.isEmpty { output.append(run) } else { appendIndented(run) }
    }

    /// Writes the indentation when output is at the start of a line.
    private mutating func beginLine() {
        if !indentation.isEmpty, output.count == 0 || output.last == UInt8(ascii: "\n") {
            output.append(indentation)
        }
    }

    /// Writes `bytes`, indenting each line that has content (blank lines stay empty).
    private mutating func appendIndented(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            if end < bytes.count { end += 1 }
            let lineIsBlank =
                bytes[start] == UInt8(ascii: "\n") || (bytes[start] == UInt8(ascii: "\r") && end - start == 2)
            if !lineIsBlank { beginLine() }
            output.append(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            start = end
        }
    }
}
