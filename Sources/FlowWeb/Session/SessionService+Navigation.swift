import FlowCore

extension SessionService {
    /// What a navigation decided under the session's lock: the answer, the navigation to record
    /// (`nil`: nothing happened, nothing is recorded), and whether to save the session anyway
    /// (its bookkeeping changed); `source` names the entry's source when it is not the one
    /// ``navigate(_:source:url:changing:_:)`` was given (a visit that became a deep link).
    struct Navigated<Result: Sendable>: Sendable {
        var result: Result
        var navigation: Navigation<Step>?
        var save = false
        var source: HistoryEntry.Source?
    }

    /// Moves `known` under its lock — the one way a request navigates a session (a visit, a deep
    /// link, a step from a link, a form or the API). `body` decides on the session as it is under
    /// the lock, calling ``visit(_:in:)`` or ``apply(_:from:to:)``; what it navigated becomes a
    /// history entry from `source` (with `url`, for visits and deep links), committed with the
    /// session before anyone is answered, logged and counted (see ``update(_:_:)``).
    ///
    /// - Throws: what `body` throws, and ``WebError`` `404` when the session is gone, `409` when
    ///   the navigation would take it past one of its ``SessionLimits``, `429` or `503` as
    ///   ``update(_:_:)`` does.
    ///
    /// With `changing` false (a `HEAD`, a fetch that is not a navigation: ``RequestIntent/look``),
    /// `body` runs on a copy of `known` instead, and nothing is locked, recorded, logged or stored:
    /// the answer is what the navigation would give.
    func navigate<Result: Sendable>(
        _ known: LoadedSession, source: HistoryEntry.Source, url: String? = nil, changing: Bool = true,
        _ body: @escaping @Sendable (inout LoadedSession) async throws(WebError) -> Navigated<Result>
    ) async throws(WebError) -> UpdatedSession<Result> {
        guard changing else {
            var copy = known
            let decided = try await body(&copy)
            return UpdatedSession(result: decided.result, session: copy)
        }
        return try await update(known) { (session: inout LoadedSession) async throws(WebError) in
            let decided = try await body(&session)
            guard let navigation = decided.navigation else { return Change(result: decided.result, save: decided.save) }
            let entry = PendingEntry(source: decided.source ?? source, navigation: navigation, url: url)
            return Change(result: decided.result, entries: [entry], save: decided.save)
        }
    }

    /// Makes page `node` of `session` visible (the browser's Back, a tab, a visit).
    func visit(_ node: NodeID, in session: inout LoadedSession) throws(WebError) -> Navigation<Step> {
        do { return try coordinator.visit(node, in: &session.tree) } catch {
            throw .internalError("the page could not be shown: \(error)")
        }
    }

    /// Applies `step` to `session`, from page `from` (`nil`: up the responder chain from the top).
    func apply(_ step: Step, from: NodeID? = nil, to session: inout LoadedSession) async throws(WebError)
        -> Navigation<Step>
    {
        do { return try await coordinator.apply(step, from: from, to: &session.tree) } catch {
            throw .internalError("the step could not be applied: \(error)")
        }
    }
}
