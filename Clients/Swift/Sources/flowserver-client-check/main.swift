// flowserver-client-check <base URL>: drives a running FlowServer demo through its JSON API with
// the client generated from openapi.yaml, every answer decoded by the generated types.
// Exits 0 when every call answered as the demo must; 1 with the first difference otherwise.
import FlowServerClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Mismatch: Error, CustomStringConvertible {
    var description: String
}

func expect(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw Mismatch(description: what()) }
}

guard CommandLine.arguments.count == 2, let base = URL(string: CommandLine.arguments[1] + "/api/v1") else {
    print("usage: flowserver-client-check http://127.0.0.1:8080")
    exit(2)
}

do {
    let anonymous = Client(serverURL: base, transport: URLSessionTransport())
    let created = try await anonymous.createSession().created.body.json
    try expect(created.state.top.url == "/onboarding/login", "a new session starts at the login page")
    let client = Client(
        serverURL: base, transport: URLSessionTransport(), middlewares: [BearerToken(session: created.session)])

    /// Sends a step; its params are text, numbers or booleans (`ParamValue`).
    func send(_ name: String, _ params: [String: Components.Schemas.ParamValue] = [:]) async throws
        -> Components.Responses.Navigation.Body.jsonPayload
    {
        let step = Components.Schemas.Step(name: name, params: .init(additionalProperties: params))
        return try await client.sendStep(body: .json(.init(step: step))).ok.body.json
    }

    _ = try await send("userIsLoggedIn", ["name": .case1("Ada")])
    _ = try await send("apiKeyIsFilledIn", ["apiKey": .case1("demo-key")])
    let picked = try await send("movieIsPicked", ["withId": .case2(2)])  // an integer param
    try expect(
        picked.state.top.url == "/movies/2", "movieIsPicked(withId: 2) shows /movies/2, not \(picked.state.top.url)")
    try expect(picked.entry.outcome == .navigated, "the step navigated")

    let state = try await client.getSession().ok.body.json
    try expect(
        state.version == picked.state.version && state.top.page == "movie", "the state is the one the step answered")

    let history = try await client.listHistory(query: .init(after: 1, limit: 2)).ok.body.json
    try expect(
        history.entries.map(\.seq) == [2, 3] && history.next == 3,
        "history after 1, 2 entries: \(history.entries.map(\.seq))")

    let past = try await client.pastState(path: .init(seq: picked.entry.seq)).ok.body.json
    try expect(
        past.top.url == "/movies/2" && past.version == picked.state.version,
        "the state right after the movie was picked, rebuilt: \(past.top.url)")
    switch try await client.pastState(path: .init(seq: 99)) {
    case .notFound: break
    default: throw Mismatch(description: "entry 99 of a short history answers something other than 404")
    }

    let visited = try await client.visit(body: .json(.init(url: "/wishlist"))).ok.body.json
    try expect(visited.state.top.url == "/wishlist", "a visit to the wishlist shows it")

    // The event stream streams: through AsyncHTTPClient (URLSession on Linux waits for the end of a
    // body, and a stream has none). The first event carrying data is the current version.
    let streaming = Client(
        serverURL: base, transport: AsyncHTTPClientTransport(), middlewares: [BearerToken(session: created.session)])
    let stream = try await streaming.streamSessionEvents(headers: .init(Last_hyphen_Event_hyphen_ID: "0")).ok.body
        .text_event_hyphen_stream
    var current: Components.Schemas.VersionEvent?
    for try await event in stream.asDecodedServerSentEventsWithJSONData(of: Components.Schemas.VersionEvent.self) {
        if let data = event.data {
            current = data
            break
        }
    }
    try expect(
        current?.version == visited.state.version && current?.top.url == "/wishlist",
        "the stream's first event is the current version")

    _ = try await client.deleteSession().noContent
    switch try await client.getSession() {
    case .unauthorized: break
    default: throw Mismatch(description: "a deleted session still answers")
    }
    print(
        "flowserver-client-check: createSession, sendStep ×3, getSession, listHistory, pastState, visit, streamSessionEvents, deleteSession answered as expected"
    )
} catch {
    print("flowserver-client-check: \(error)")
    exit(1)
}
