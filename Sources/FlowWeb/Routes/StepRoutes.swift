import FlowCore
import MicroHTTP

/// `/_step` (Docs/CONTRACT.md §3): steps from links and forms, always answered `303` to the
/// resulting top page — or, when the form's page finds it invalid, to the page as it is, which
/// then shows the form again with its messages (post/redirect/get) — or with an error page.
struct StepRoutes<Step: FlowStep>: RouteCollection {
    let context: FlowWebContext<Step>

    func register(on router: inout Router) {
        router.addForAnyMethod("/_step/**") { request, _ in await respond(to: request) }
    }

    func respond(to request: Request) async -> Response {
        let intent = RequestIntent(request)
        // A step changes the session only through `SessionService.update`, which confirms a held copy.
        return await context.withBrowserSession(request, changing: intent.changes, takesHeldCopy: true) {
            session async throws(WebError) in
            guard intent != .speculation else { throw RequestIntent.declined }
            guard request.headers["Sec-Fetch-Site"]?.lowercased() != "cross-site" else {
                throw WebError.forbidden("Steps cannot be sent from another site.")
            }
            let parsed = try StepRequest(request, maxFields: context.configuration.maxFields)
            if request.method == .post { try context.resolver.checkFormToken(parsed.csrf, of: session) }
            if parsed.source == .form, let failed = invalidForm(parsed, in: session) {
                guard intent.changes else {
                    // A look stores nothing: the page with the form again, as the answer.
                    let page = try context.composer.render(
                        session, notice: nil, status: .unprocessableContent, form: failed)
                    return .init(result: page, session: session)
                }
                let kept = try await context.sessions.keep(failed, of: session)
                return .init(result: context.redirect(kept.tree.top?.url ?? "/"), session: kept)
            }
            let step: Step
            do { step = try parsed.wire.decode(as: Step.self) } catch {
                throw WebError.badRequest("Cannot send this step: \(error).")
            }
            let sent = try await context.sessions.send(step, parsed, to: session, changing: intent.changes)
            return .init(result: context.redirect(sent.result), session: sent.session)
        }
    }

    /// The form with its messages when the form's page finds its fields invalid.
    private func invalidForm(_ parsed: StepRequest, in session: LoadedSession) -> PageComposer.FormState? {
        guard let from = parsed.from, let page = session.tree.page(from),
            let renderer = context.sessions.app.renderer(for: page.page)
        else { return nil }
        let errors = renderer.validate(page.page.base, parsed.wire.name, parsed.fields)
        guard !errors.isEmpty else { return nil }
        return .init(page: from, values: SessionExtra.FailedForm.keptValues(parsed.fields), errors: errors)
    }
}
