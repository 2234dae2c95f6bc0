import FlowCore

extension SessionService {
    /// What a change commits: the session with the change's entries, or — when that would take
    /// the session past one of its ``SessionLimits`` — the session as it was before the change,
    /// with the entries recorded as refused, and the limit crossed.
    struct PreparedChange: Sendable {
        /// The commit to make.
        var commit: SessionCommit<Step>
        /// The session it commits.
        var session: LoadedSession
        /// The limit that refused the change, if one did.
        var refusal: LimitCrossing?
    }

    /// The commit of `session`, changed from `before` with `entries`, checked against the
    /// session's limits.
    ///
    /// - Throws: ``WebError`` `500` when the session cannot be encoded.
    func prepare(_ session: LoadedSession, before: LoadedSession, entries: [PendingEntry<Step>]) throws(WebError)
        -> PreparedChange
    {
        let commit = try commit(session, from: before, entries: entries)
        guard let crossing = limits.crossing(before: before, commit: commit) else {
            return PreparedChange(commit: commit, session: session)
        }
        metrics?.recordLimitRefusal(crossing.limit)
        logger.warning(
            "navigation refused: the session would grow past a limit",
            metadata: [
                "session": "\(session.record.id.prefix(8))", "limit": "\(crossing.limit.rawValue)",
                "reached": "\(crossing.reached)", "maximum": "\(crossing.maximum)",
            ])
        let refused = entries.map { $0.refused(crossing.reason, top: before.tree.top) }
        return PreparedChange(
            commit: try self.commit(before, from: before, entries: refused), session: before, refusal: crossing)
    }

    /// The commit of `session`, changed from `before` with `entries`, at the clock's time.
    private func commit(_ session: LoadedSession, from before: LoadedSession, entries: [PendingEntry<Step>])
        throws(WebError) -> SessionCommit<Step>
    {
        try SessionCommit(
            session, entries: entries, appDataBefore: before.tree.appData, now: clock(), lifetime: lifetime,
            retention: retention, appVersion: app.version)
    }

    /// Logs each navigation `prepared` committed (at info level) and counts it by outcome.
    func recordCommitted(_ prepared: PreparedChange) {
        for entry in prepared.commit.entries {
            metrics?.recordNavigation(entry.navigation.outcome)
            guard logger.logLevel <= .info else { continue }
            var step = "-"
            if case .step(let value, _) = entry.navigation.trigger {
                step = (try? WireStep(value))?.canonical ?? "\(value)"
            }
            logger.info(
                "navigation",
                metadata: [
                    "session": "\(prepared.session.record.id.prefix(8))", "source": "\(entry.source.rawValue)",
                    "step": "\(step)", "outcome": "\(entry.navigation.outcome.rawValue)",
                    "top": "\(entry.navigation.topURL)",
                ])
        }
    }
}

extension PendingEntry {
    /// This navigation as a session limit refused it: nothing changed, the top as it was.
    func refused(_ reason: String, top: PageNode?) -> PendingEntry {
        var navigation = navigation
        navigation.outcome = .rejected
        navigation.actions = []
        navigation.steps = []
        if let top {
            navigation.top = top.id
            navigation.topURL = top.url
        }
        return PendingEntry(source: source, navigation: navigation, url: url, reason: reason)
    }
}
