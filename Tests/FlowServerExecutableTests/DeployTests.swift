import FlowStore
import FlowStoreSQLite
import FlowTesting
import Foundation
import ProcessTestSupport
import Testing

/// A new session of the server on `port`, stored at once (`POST /api/v1/sessions`): its id.
private func newSession(_ port: Int) throws -> String {
    let created = try TestConnection(port: port).request(
        "POST", "/api/v1/sessions", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
    return try #require(
        (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["session"] as? String)
}

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
        // The server creates no directory but the default one (.data/).
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = "\(directory.path)/sessions.sqlite"
        let first = try FlowServerProcess(["--port", "0", "--store", "sqlite:\(path)"])
        let port = try #require(first.listeningPort())
        let session = try newSession(port)
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

/// `flowserver sessions check` as a deploy gate.
@Suite("sessions check", .serialized)
struct SessionsCheckTests {
    @Test("counts what reads, what would be reset (by cause, with sample ids) and what a later version stored; exit 1")
    func check() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowserver-check-\(UUID().uuidString)")
        // The server creates no directory but the default one (.data/).
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = "\(directory.path)/sessions.sqlite"
        let server = try FlowServerProcess(["--port", "0", "--store", "sqlite:\(path)"])
        let port = try #require(server.listeningPort())
        var ids: [String] = []
        for _ in 0..<4 {
            ids.append(try newSession(port))
        }
        server.process.terminate()
        #expect(server.waitForExit() == 0)

        let clean = try FlowServerProcess(["sessions", "check", "--store", "sqlite:\(path)"])
        #expect(clean.waitForExit(seconds: 60) == 0, "\(clean.standardError)")
        let printed = clean.standardOutput
        #expect(printed.contains("4 stored sessions read by app version 1 (0 migrations)"))
        #expect(printed.contains("4 read as they are"))

        let store = try SQLiteSessionStore(path: path)
        for (index, change) in [(0, "page"), (1, "newer")] {
            var record = try #require(try await store.load(ids[index]))
            if change == "page" {
                record.tree = Array(
                    String(decoding: record.tree, as: UTF8.self).replacing(
                        #""page":"login""#, with: #""page":"signIn""#
                    )
                    .utf8)
            } else {
                record.extra = Array(#"{"level":3,"app":"2.0"}"#.utf8)
            }
            record.version += 1
            try await store.commit(record, expectedVersion: record.version - 1, entries: [])
        }
        let gate = try FlowServerProcess(["sessions", "check", "--format", "json", "--store", "sqlite:\(path)"])
        #expect(gate.waitForExit(seconds: 60) == 1, "a session would be reset: \(gate.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(gate.standardOutput.utf8)) as? [String: Any])
        #expect(report["sessions"] as? Int == 4)
        #expect(report["readAsIs"] as? Int == 2)
        #expect(report["reset"] as? Int == 1)
        #expect(report["newerVersion"] as? Int == 1)
        let byCause = try #require(report["resetsByCause"] as? [String: [String: Any]])
        #expect(byCause["unknown-page"]?["count"] as? Int == 1)
        #expect(byCause["unknown-page"]?["samples"] as? [String] == [String(ids[0].prefix(8))])
        #expect(try await store.load(ids[0])?.version == 2, "a check changes nothing")

        let bad = try FlowServerProcess(["sessions", "check", "--store", "nowhere"])
        #expect(bad.waitForExit() == 2)
        #expect(bad.standardError.contains("(see flowserver sessions --help)"))
    }

    @Test("restore brings a quarantined copy this build reads back over the session as it went on since")
    func restore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowserver-restore-\(UUID().uuidString)")
        // The server creates no directory but the default one (.data/).
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = "\(directory.path)/sessions.sqlite"
        let server = try FlowServerProcess(["--port", "0", "--store", "sqlite:\(path)"])
        let port = try #require(server.listeningPort())
        let id = try newSession(port)
        let step = try TestConnection(port: port).request(
            "POST", "/api/v1/session/steps",
            headers: [("Authorization", "Bearer \(id)"), ("Content-Type", "application/json")],
            body: Array(#"{"step":{"name":"userIsLoggedIn","params":{"name":"Ada"}}}"#.utf8))
        #expect(step.status == 200)
        server.process.terminate()
        #expect(server.waitForExit() == 0)

        // As an earlier build left it: the stored copy set aside, the session started again since.
        let store = try SQLiteSessionStore(path: path)
        let original = try #require(try await store.load(id))
        try await store.quarantine(
            QuarantinedSession(
                record: original, history: try await store.history(id, after: 0, limit: 100), reason: "a test",
                cause: "unknown-page", writtenBy: "1", quarantinedAt: original.lastUsedAt,
                expiresAt: original.expiresAt))
        var restarted = original
        restarted.version += 1
        restarted.extra = Array(#"{"restarted":\#(restarted.version)}"#.utf8)
        try await store.commit(restarted, expectedVersion: original.version, entries: [])
        try await store.dropHistory(id, before: original.lastSeq + 1)

        let run = try FlowServerProcess(["sessions", "restore", "--format", "json", "--store", "sqlite:\(path)"])
        #expect(run.waitForExit(seconds: 60) == 0, "\(run.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(report["restored"] as? Int == 1)
        let restored = try #require(try await store.load(id))
        #expect(restored.version == original.version + 2)
        #expect(restored.tree == original.tree)
        #expect(restored.csrfToken == original.csrfToken)

        let again = try FlowServerProcess(["--port", "0", "--store", "sqlite:\(path)"])
        let next = try #require(again.listeningPort())
        let history = try TestConnection(port: next).request(
            "GET", "/api/v1/session/history", headers: [("Authorization", "Bearer \(id)")])
        #expect(history.status == 200)
        #expect(history.text.contains(#""source":"restart""#) && history.text.contains("userIsLoggedIn"))
        let last = try TestConnection(port: next).request(
            "GET", "/api/v1/session/history/\(restored.lastSeq)/state", headers: [("Authorization", "Bearer \(id)")])
        #expect(last.status == 200)
        again.process.terminate()
        #expect(again.waitForExit() == 0)
    }
}
