import FlowCore
import MicroHTTP

extension FlowWebResponder {
    /// A step request from a link (`GET /_step/<name>?…`) or a form (`POST /_step`), parsed.
    struct StepRequest {
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

    /// `/_step` (Docs/CONTRACT.md §3): always `303` to the resulting top page, or an error page.
    func respondToStep(_ request: Request) async -> Response {
        await withBrowserSession(request) { session async throws(WebError) in
            guard request.headers["Sec-Fetch-Site"]?.lowercased() != "cross-site" else {
                throw WebError.forbidden("Steps cannot be sent from another site.")
            }
            let parsed = try parseStep(request)
            if request.method == .post {
                guard let token = parsed.csrf, Self.constantTimeEqual(token, session.record.csrfToken) else {
                    throw WebError.forbidden(
                        "The form's security token is missing or out of date. Reload the page and try again.")
                }
            }
            if parsed.source == .form, let invalid = try invalidForm(parsed, in: session) {
                return SessionAnswer(result: invalid, session: session)
            }
            let step: Step
            do { step = try parsed.wire.decode(as: Step.self) } catch {
                throw WebError.badRequest("Cannot send this step: \(error).")
            }
            let applied = try await applyStep(step, parsed, to: session)
            return SessionAnswer(result: redirect(applied.result), session: applied.session)
        }
    }

    /// What applying a step answers: where to go (its top page's URL) and the session it left.
    typealias AppliedStep = SessionService<Step>.UpdatedSession<String>

    /// Applies the step (or finds the answer of its first submission): its result is where to go.
    func applyStep(_ step: Step, _ parsed: StepRequest, to session: LoadedSession) async throws(WebError)
        -> AppliedStep
    {
        let canonical = parsed.wire.canonical
        return try await sessions.update(session) { [self] (current: inout LoadedSession) async throws(WebError) in
            if let render = parsed.render, let location = current.extra.location(render: render, step: canonical) {
                return .init(result: location)
            }
            let navigation: Navigation<Step>
            let from = parsed.fromTop ? (parsed.from ?? current.tree.top?.id) : parsed.from
            // Stale: the page the step came from left the tree (and did not allow steps after).
            let stale =
                from.map { node in
                    current.tree.page(node) == nil && !current.tree.dismissedPages.contains { $0.node == node }
                } ?? false
            do { navigation = try await sessions.coordinator.apply(step, from: from, to: &current.tree) } catch {
                throw .internalError("the step could not be applied: \(error)")
            }
            let location = stale ? navigation.topURL + "?_notice=stale" : navigation.topURL
            if let render = parsed.render {
                current.extra.remember(.init(render: render, step: canonical, location: location))
            }
            let entry = PendingEntry(source: parsed.source, navigation: navigation, url: nil)
            logNavigation(current, entry)
            return .init(result: location, entries: [entry], save: true)
        }
    }

    /// The `422` page when the form's page finds its fields invalid.
    private func invalidForm(_ parsed: StepRequest, in session: LoadedSession) throws(WebError) -> Response? {
        guard let from = parsed.from, let page = session.tree.page(from),
            let renderer = sessions.app.renderer(for: page.page)
        else { return nil }
        let errors = renderer.validate(page.page.base, parsed.wire.name, parsed.fields)
        guard !errors.isEmpty else { return nil }
        return try composer.render(
            session, notice: nil, status: .unprocessableContent,
            form: .init(page: from, values: parsed.fields, errors: errors))
    }

    private func parseStep(_ request: Request) throws(WebError) -> StepRequest {
        let fields: [FormField]
        let source: HistoryEntry.Source
        var name = request.pathSegments.count == 2 ? request.pathSegments[1] : nil
        switch request.method {
        case .get, .head:
            guard name != nil else { throw WebError.notFound("A step link names its step: /_step/<name>.") }
            do {
                fields = try URLEncodedForm.parse(
                    Array((request.rawQuery ?? "").utf8), maxFields: configuration.maxFields, location: "query")
            } catch {
                throw Self.webError(error)
            }
            source = .link
        case .post:
            let type: MediaType?
            do { type = try request.contentType } catch { throw WebError.badRequest("\(error)") }
            do {
                if let type, type.hasSameEssence(as: .urlEncodedForm) {
                    fields = try URLEncodedForm.parse(
                        request.body, maxFields: configuration.maxFields, location: "form")
                } else if let type, type.hasSameEssence(as: .multipartFormData),
                    let boundary = type.parameter("boundary")
                {
                    fields = try MultipartForm.parse(
                        request.body, boundary: boundary, maxFields: configuration.maxFields)
                } else {
                    throw WebError.unsupportedMediaType(
                        "Send forms as application/x-www-form-urlencoded or multipart/form-data.")
                }
            } catch let error as HTTPParseError {
                throw Self.webError(error)
            } catch let error as WebError {
                throw error
            } catch {
                throw WebError.badRequest("\(error)")
            }
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
        return StepRequest(
            wire: WireStep(name: name, params: params), from: from, render: render, csrf: csrf, source: source,
            fields: params.mapValues(\.formValue))
    }

    static func webError(_ error: HTTPParseError) -> WebError {
        error.code == .tooManyFields
            ? .contentTooLarge("Too many fields: \(error).") : .badRequest("Malformed input: \(error).")
    }

    /// Compares secrets in time that does not depend on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
