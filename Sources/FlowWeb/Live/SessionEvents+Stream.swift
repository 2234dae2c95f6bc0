import FlowCore
import MicroHTTP

extension SessionEvents {
    /// The event stream of `session` for `request` (`/_events`, `/api/v1/session/events`): from
    /// the current version when the client's is older (`Last-Event-ID` on a reconnection, or
    /// `?version=` from the page).
    ///
    /// - Throws: ``WebError`` `429` when the session has as many streams open as it may.
    func stream(of session: LoadedSession, for request: Request) throws(WebError) -> Response {
        guard let top = session.tree.top else { throw .internalError("the session shows no page") }
        let since =
            request.headers["Last-Event-ID"].flatMap(Int.init)
            ?? (try? request.queryItems)?.first { $0.name == "version" }.flatMap { Int($0.value) }
        guard
            let stream = open(
                session.record.id, since: since, version: session.record.version,
                top: PageReference(node: top.id.rawValue, url: top.url))
        else {
            throw .tooManyStreams("This session has as many open event streams as it may; close a tab and reload.")
        }
        return Response(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store"], stream: stream)
    }
}
