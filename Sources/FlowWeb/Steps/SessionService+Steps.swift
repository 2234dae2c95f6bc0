import FlowCore

extension SessionService {
    /// Applies `step`, sent as `request` says, to `session`, or finds where its first submission
    /// led (the same `_r` and step again: a double submit). The result is where to go: the new
    /// top page's URL, with `?_notice=stale` when the page it came from had left the tree.
    /// With `changing` false, works it out on a copy and changes nothing (see
    /// ``navigate(_:source:url:changing:_:)``).
    func send(_ step: Step, _ request: StepRequest, to session: LoadedSession, changing: Bool = true)
        async throws(WebError) -> UpdatedSession<String>
    {
        let canonical = request.wire.canonical
        return try await navigate(session, source: request.source, changing: changing) {
            [self] (current: inout LoadedSession) async throws(WebError) in
            if let render = request.render, let location = current.extra.location(render: render, step: canonical) {
                return .init(result: location)
            }
            let from = request.fromTop ? (request.from ?? current.tree.top?.id) : request.from
            // Stale: the page the step came from left the tree (and did not allow steps after).
            let stale =
                from.map { node in
                    current.tree.page(node) == nil && !current.tree.dismissedPages.contains { $0.node == node }
                } ?? false
            let navigation = try await apply(step, from: from, to: &current)
            let location = stale ? navigation.topURL + "?_notice=stale" : navigation.topURL
            if let render = request.render {
                current.extra.remember(.init(render: render, step: canonical, location: location))
            }
            return .init(result: location, navigation: navigation, save: true)
        }
    }
}

extension SessionService {
    /// Keeps `form`, which its page found invalid, with `session` for the page that answers the
    /// redirect after it: the tree and history stay as they are, and the form is shown again
    /// until the session next changes (``LoadedSession/failedForm``).
    ///
    /// - Throws: ``WebError`` as ``update(_:_:)`` does.
    func keep(_ form: PageComposer.FormState, of session: LoadedSession) async throws(WebError) -> LoadedSession {
        try await update(session) { (current: inout LoadedSession) async throws(WebError) in
            current.extra.failedForm = SessionExtra.FailedForm(
                version: current.record.version + 1, page: form.page.rawValue, values: form.values, errors: form.errors)
            current.extra.changed = true
            return Change(result: (), save: true)
        }.session
    }
}
