import FlowCore
import MicroHTTP

/// `GET /_events` (live tabs, Docs/CONTRACT.md §9): the session's version changes as Server-Sent
/// Events, for the pages of its open tabs to tell whether they still show the current page. The
/// stream starts with the current version when the client's is older: `Last-Event-ID` on a
/// reconnection, or `?version=` from the page. Without a session: `204`, which tells a browser's
/// `EventSource` not to try again, and no cookie.
struct EventRoutes<Step: FlowStep>: RouteCollection {
    let context: FlowWebContext<Step>

    func register(on router: inout Router) {
        router.add(.get, "/_events") { request, _ in await respond(to: request) }
    }

    private func respond(to request: Request) async -> Response {
        do throws(WebError) {
            guard let session = try await context.resolver.resolve(request, .reading)?.session else {
                return Response(status: .noContent)
            }
            return try context.sessions.events.stream(of: session, for: request)
        } catch {
            return context.errors.response(error, to: request)
        }
    }
}
