import FlowStore
import FlowStoreSQLite
import FlowTesting
import Foundation
import ProcessTestSupport
import Testing

/// The demo across a deploy that changed what its sessions hold (issue "Sessions survive a
/// deploy"): a visitor onboards and opens `/movies/3`, the server stops, the stored session is
/// changed the way the next version of the app would find it, and the server starts again.
@Suite("The demo across a deploy", .serialized)
struct DeployTests {
    private func call(_ port: Int, _ method: String, _ path: String, bearer: String, json: String? = nil) throws
        -> (status: Int, body: String)
    {
        var headers = [("Authorization", "Bearer \(bearer)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        let response = try TestConnection(port: port).request(
            method, path, headers: headers, body: Array((json ?? "").utf8))
        return (response.status, response.text)
    }

    @Test(
        "a page renamed, a flow renamed or a state's new field: every URL answers the visitor without a 5xx",
        arguments: [
            (#""page":"movie""#, #""page":"film""#), (#""flow":"watched""#, #""flow":"seen""#),
            (#"{"aboutRequests":0}"#, "{}"),
        ])
    func changedSession(_ change: (String, String)) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowserver-deploy-\(UUID().uuidString)")
        let path = "\(directory.path)/sessions.sqlite"
        let first = try FlowServerProcess(["--port", "0", "--store", "sqlite:\(path)"])
        let port = try #require(first.listeningPort())
        let created = try TestConnection(port: port).request(
            "POST", "/api/v1/sessions", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        let session = try #require(
            (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["session"] as? String)
        for step in [
            #"{"name":"userIsLoggedIn","params":{"name":"Ada"}}"#,
            #"{"name":"apiKeyIsFilledIn","params":{"apiKey":"k"}}"#,
        ] {
            #expect(
                try call(port, "POST", "/api/v1/session/steps", bearer: session, json: #"{"step":\#(step)}"#).status
                    == 200)
        }
        #expect(
            try call(port, "POST", "/api/v1/session/visits", bearer: session, json: #"{"url":"/movies/3"}"#).status
                == 200)
        first.process.terminate()
        #expect(first.waitForExit() == 0)

        let store = try SQLiteSessionStore(path: path)
        var record = try #require(try await store.load(session))
        let tree = String(decoding: record.tree, as: UTF8.self)
        #expect(tree.contains(change.0), "the stored tree has \(change.0)")
        record.tree = Array(tree.replacing(change.0, with: change.1).utf8)
        record.version += 1
        try await store.commit(record, expectedVersion: record.version - 1, entries: [])

        let second = try FlowServerProcess(["--port", "0", "--store", "sqlite:\(path)"])
        let again = try #require(second.listeningPort())
        for url in ["/movies/3", "/", "/wishlist", "/_inspector", "/_inspector/graph", "/api/v1/session"] {
            let response = try TestConnection(port: again).request(
                "GET", url, headers: [("Cookie", "flowserver_session=\(session)")])
            #expect(response.status < 500, "\(url) answered \(response.status): \(response.text.prefix(300))")
        }
        let state = try call(again, "GET", "/api/v1/session", bearer: session)
        #expect(state.status == 200)
        #expect(try await store.quarantined(session).count == 1)
        second.process.terminate()
        #expect(second.waitForExit() == 0)
        #expect(second.standardError.contains("session restarted"), "logged once: \(second.standardError.prefix(500))")
    }
}
