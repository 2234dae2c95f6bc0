import MicroHTTP

extension FlowWebResponder {
    /// `GET /_events` (live tabs): the session's version changes as Server-Sent Events, for the
    /// pages of its open tabs to tell whether they still show the current page. The stream starts
    /// with the current version when the client's is older: `Last-Event-ID` on a reconnection,
    /// or `?version=` from the page. Without a session: `204`, which tells a browser's
    /// `EventSource` not to try again, and no cookie.
    func respondToEvents(_ request: Request) async -> Response {
        var session: LoadedSession?
        if let id = request.cookie(configuration.sessionCookieName) {
            do { session = try await sessions.load(id) } catch { return error.problem }
        }
        guard let session else { return Response(status: .noContent) }
        return events(of: session, for: request)
    }

    /// The event stream of `session` for `request` (`/_events`, `/api/v1/session/events`).
    func events(of session: LoadedSession, for request: Request) -> Response {
        guard let top = session.tree.top else { return WebError.internalError("the session shows no page").problem }
        let since =
            request.headers["Last-Event-ID"].flatMap(Int.init)
            ?? (try? request.queryItems)?.first { $0.name == "version" }.flatMap { Int($0.value) }
        guard
            let stream = sessions.events.open(
                session.record.id, since: since, version: session.record.version,
                top: PageReference(node: top.id.rawValue, url: top.url))
        else {
            return WebError.tooManyStreams(
                "This session has as many open event streams as it may; close a tab and reload."
            ).problem
        }
        return Response(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store"], stream: stream)
    }
}
