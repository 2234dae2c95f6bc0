import FlowCore
import MicroHTTP

/// A step request from a link (`GET /_step/<name>?…`), a form (`POST /_step`) or the API,
/// parsed (Docs/CONTRACT.md §3).
struct StepRequest: Sendable {
    var wire: WireStep
    /// The page the step comes from; `nil` with ``fromTop`` means the top page at the time
    /// the step applies (under the session's lock).
    var from: NodeID?
    var fromTop = false
    var render: String?
    var csrf: String?
    var source: HistoryEntry.Source
    /// The form's fields by name (for validation), when it came from a form.
    var fields: [String: String] = [:]
}

extension StepRequest {
    /// The step `request` sends from a link or a form, with at most `maxFields` fields.
    ///
    /// - Throws: ``WebError`` `400`, `404`, `405`, `413` or `415` for a request that sends no step.
    init(_ request: Request, maxFields: Int) throws(WebError) {
        let fields: [FormField]
        let source: HistoryEntry.Source
        var name = request.pathSegments.count == 2 ? request.pathSegments[1] : nil
        switch request.method {
        case .get, .head:
            guard name != nil else { throw WebError.notFound("A step link names its step: /_step/<name>.") }
            do {
                fields = try URLEncodedForm.parse(
                    Array((request.rawQuery ?? "").utf8), maxFields: maxFields, location: "query")
            } catch {
                throw Self.webError(error)
            }
            source = .link
        case .post:
            fields = try Self.formFields(request, maxFields: maxFields)
            source = .form
        default:
            throw WebError.methodNotAllowed(request.pathSegments.count == 2 ? "GET, HEAD" : "POST")
        }
        var params: [String: WireValue] = [:]
        var from: NodeID?
        var render: String?
        var csrf: String?
        for field in fields {
            switch field.name {
            case "_step": name = name ?? field.value
            case "_from":
                guard let number = Int(field.value), number > 0 else {
                    throw WebError.badRequest("Field \"_from\" must be a page node number.")
                }
                from = NodeID(rawValue: number)
            case "_r": render = field.value
            case "_csrf": csrf = field.value
            case let other where other.hasPrefix("_"): continue
            default: params[field.name] = .string(field.value)
            }
        }
        guard let name, !name.isEmpty else {
            throw WebError.badRequest("The form names no step: add a field or button named \"_step\".")
        }
        self.init(
            wire: WireStep(name: name, params: params), from: from, render: render, csrf: csrf, source: source,
            fields: params.mapValues(\.formValue))
    }

    /// The fields of a form's body, URL-encoded or multipart.
    private static func formFields(_ request: Request, maxFields: Int) throws(WebError) -> [FormField] {
        let type: MediaType?
        do { type = try request.contentType } catch { throw WebError.badRequest("\(error)") }
        do {
            if let type, type.hasSameEssence(as: .urlEncodedForm) {
                return try URLEncodedForm.parse(request.body, maxFields: maxFields, location: "form")
            } else if let type, type.hasSameEssence(as: .multipartFormData), let boundary = type.parameter("boundary") {
                return try MultipartForm.parse(request.body, boundary: boundary, maxFields: maxFields)
            }
        } catch {
            throw Self.webError(error)
        }
        throw WebError.unsupportedMediaType("Send forms as application/x-www-form-urlencoded or multipart/form-data.")
    }

    /// A parse error of a query or form as the answer it gets: `413` for too many fields, `400`
    /// otherwise.
    static func webError(_ error: HTTPParseError) -> WebError {
        error.code == .tooManyFields
            ? .contentTooLarge("Too many fields: \(error).") : .badRequest("Malformed input: \(error).")
    }
}
