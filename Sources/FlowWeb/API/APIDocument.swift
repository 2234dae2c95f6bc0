import MicroHTTP

/// The OpenAPI document an app serves at `/public/openapi.yaml`: FlowServer's (in
/// `Defaults/Public/`, whose `sendStep` takes any step), with the step `sendStep` takes described
/// by the app's own — an `AppStep` schema, `oneOf` one schema per step by name, each param with its
/// type — so a generated client gets typed steps and a request the document allows is one the
/// server can take. Answers keep the general `Step`: a history holds steps no page sends.
enum APIDocument {
    /// The line of `sendStep`'s body that names the step's schema.
    static let sendStepLine = "                step: { $ref: \"#/components/schemas/Step\" }\n"
    /// The schema the app's steps go before.
    static let paramValueLine = "\n    ParamValue:\n"

    /// `base` with `sendStep` taking `steps`; `base` unchanged when there are none or it is not
    /// FlowServer's document.
    static func yaml(base: String, steps: [StepSignature]) -> String {
        guard !steps.isEmpty, let body = base.range(of: sendStepLine), let schemas = base.range(of: paramValueLine)
        else { return base }
        var lines = [
            "    AppStep:",
            "      description: |",
            "        One of this app's steps, by name, with its params. A param also takes the text a form",
            "        would send for it: \"2\" for an integer, \"1.5\" for a number, true/false, on/off, yes/no",
            "        or 1/0 for a boolean.",
            "      oneOf:",
        ]
        for step in steps.sorted() { lines.append("        - $ref: \"#/components/schemas/\(schemaName(of: step))\"") }
        for step in steps.sorted() {
            let required = step.params.filter { !$0.isOptional }.map { quoted($0.name) }
            lines += [
                "    \(schemaName(of: step)):",
                "      type: object",
                "      required: [\(required.isEmpty ? "name" : "name, params")]",
                "      properties:",
                "        name: { type: string, enum: [\(quoted(step.name))] }",
                "        params:",
                "          type: object",
            ]
            if !required.isEmpty { lines.append("          required: [\(required.joined(separator: ", "))]") }
            if !step.params.isEmpty {
                lines.append("          properties:")
                for param in step.params {
                    lines.append("            \(quoted(param.name)): \(schema(of: param.type))")
                }
            }
        }
        lines += paramSchemas
        return String(base[..<body.lowerBound])
            + sendStepLine.replacingOccurrences(of: "schemas/Step", with: "schemas/AppStep")
            + base[body.upperBound...schemas.lowerBound] + lines.joined(separator: "\n")
            + base[schemas.lowerBound...]
    }

    /// The schema of a param of `type`: its JSON type, or the text the server reads as one.
    private static func schema(of type: StepSignature.ParamType) -> String {
        switch type {
        case .string: "{ type: string }"
        case .integer: "{ $ref: \"#/components/schemas/IntegerParam\" }"
        case .number: "{ $ref: \"#/components/schemas/NumberParam\" }"
        case .boolean: "{ $ref: \"#/components/schemas/BooleanParam\" }"
        }
    }

    /// The shared param schemas: each JSON type, or text that spells a value of it (spaces
    /// around a number are allowed, as the server trims them).
    private static let paramSchemas = [
        "    IntegerParam:",
        "      oneOf:",
        "        - { type: integer }",
        "        - { type: string, pattern: '^ *[-+]?[0-9]+ *$' }",
        "    NumberParam:",
        "      oneOf:",
        "        - { type: number }",
        "        - { type: string, pattern: '^ *[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)? *$' }",
        "    BooleanParam:",
        "      oneOf:",
        "        - { type: boolean }",
        "        - { type: string, pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Oo][Nn]|[Oo][Ff][Ff]|[Yy][Ee][Ss]|[Nn][Oo]|1|0)$' }",
    ]

    /// `AppStep_<name>`, the name of a step's schema.
    private static func schemaName(of step: StepSignature) -> String {
        "AppStep_" + String(step.name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }

    /// `text` as a double-quoted YAML scalar (a name such as `on` or `no` stays text).
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// `/public/openapi.yaml` as the app serves it: ``APIDocument`` made once from the app's steps
/// (``WebConfiguration/apiSteps``) on the first request for it; FlowServer's own document when
/// the steps cannot be had.
struct ServedAPIDocument: Sendable {
    private let document: MadeOnce<EmbeddedFiles?>

    init(_ steps: @escaping @Sendable () async throws -> [StepSignature]) {
        document = MadeOnce {
            guard let found = try? await steps(), !found.isEmpty,
                let base = FlowWebDefaults.publicFiles["openapi.yaml"]
            else { return nil }
            let yaml = APIDocument.yaml(base: String(decoding: base, as: UTF8.self), steps: found)
            return EmbeddedFiles(files: ["openapi.yaml": Array(yaml.utf8)], urlPrefix: "/public")
        }
    }

    /// The app's document for `request` (`GET /public/openapi.yaml`), or `nil`: serve the default.
    func respond(to request: Request) async -> Response? {
        guard request.pathSegments == ["public", "openapi.yaml"], let files = try? await document.value() else {
            return nil
        }
        return await files.respond(to: request)
    }
}
