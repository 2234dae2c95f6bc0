import FlowCore

/// What one of an app's steps takes on the wire: its name and each param with its type, as the
/// served OpenAPI document (`/public/openapi.yaml`) describes it.
///
/// Made by ``init(probing:params:as:)``, which learns each type by decoding samples as the
/// server would; `FlowExplorer` probes every step the app's pages send.
public struct StepSignature: Sendable, Hashable, Comparable {
    /// The type a param decodes as.
    public enum ParamType: String, Sendable, Hashable {
        /// Text.
        case string
        /// An integer (or its decimal text).
        case integer
        /// A number (or its text).
        case number
        /// A boolean (or `true`/`false`, `on`/`off`, `yes`/`no`, `1`/`0`).
        case boolean
    }

    /// One param.
    public struct Param: Sendable, Hashable {
        /// Its label.
        public var name: String
        /// What it decodes as.
        public var type: ParamType
        /// Whether the step decodes without it.
        public var isOptional: Bool

        /// A param.
        public init(name: String, type: ParamType, isOptional: Bool = false) {
            self.name = name
            self.type = type
            self.isOptional = isOptional
        }
    }

    /// The step's case name.
    public var name: String
    /// Its params, by name.
    public var params: [Param]

    /// A signature.
    public init(name: String, params: [Param] = []) {
        self.name = name
        self.params = params.sorted { $0.name < $1.name }
    }

    /// The signature of the step `name` of `Step` with the params `params` (names seen on links
    /// or forms), learned by decoding: each param is tried as text, then a fraction, an integer
    /// and a boolean, and keeps the first that decodes; a param the decoding says is missing is
    /// added; a param the step decodes without is optional. `nil` when no such step decodes (not a step of `Step`, or a param of a type no
    /// link or form can carry).
    public init?<Step: FlowStep>(probing name: String, params: Set<String>, as _: Step.Type) {
        let candidates: [(WireValue, ParamType)] = [
            (.string("sample"), .string), (.double(1.5), .number), (.int(1), .integer), (.bool(true), .boolean),
        ]
        var choice = Dictionary(uniqueKeysWithValues: params.map { ($0, 0) })
        func wire(without left: String? = nil) -> WireStep {
            var values: [String: WireValue] = [:]
            for (param, index) in choice where param != left { values[param] = candidates[index].0 }
            return WireStep(name: name, params: values)
        }
        // Each failure names the param it could not decode: that one tries its next candidate.
        while true {
            do throws(StepDecodingError) {
                _ = try wire().decode(as: Step.self)
                break
            } catch {
                guard let field = error.field else { return nil }
                guard let index = choice[field] else {
                    // A param no page showed: learned from the step itself.
                    choice[field] = 0
                    continue
                }
                guard index + 1 < candidates.count else { return nil }
                choice[field] = index + 1
            }
        }
        self.init(
            name: name,
            params: choice.map { param, index in
                Param(
                    name: param, type: candidates[index].1,
                    isOptional: (try? wire(without: param).decode(as: Step.self)) != nil)
            })
    }

    public static func < (lhs: StepSignature, rhs: StepSignature) -> Bool { lhs.name < rhs.name }
}
