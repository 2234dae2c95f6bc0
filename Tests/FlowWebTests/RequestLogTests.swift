import FlowStore
import FlowWeb
import Foundation
import Logging
import MicroHTTP
import Synchronization
import Testing

/// Log entries kept in memory.
private final class LogRecords: Sendable {
    let entries = Mutex<[(message: String, metadata: Logger.Metadata)]>([])

    /// The metadata of each `request` entry, as text.
    var requests: [[String: String]] {
        entries.withLock { entries in
            entries.filter { $0.message == "request" }.map { $0.metadata.mapValues { "\($0)" } }
        }
    }
}

/// A log handler that keeps every entry in ``LogRecords``.
private struct RecordingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.entries.withLock { $0.append((event.message.description, event.metadata ?? [:])) }
    }
}

@Suite("The request log")
struct RequestLogTests {
    private func responder(
        logLevel: Logger.Level, records: LogRecords, templates: [String: String] = [:]
    ) throws -> FlowWebResponder<WebStep> {
        FlowWebResponder(
            app: try TestSite.webApp(), store: MemorySessionStore(),
            templates: try FlowWebDefaults.templates(directory: try TestTemplates.directory(extra: templates).path),
            logger: Logger(label: "test") { _ in RecordingLogHandler(records: records, logLevel: logLevel) })
    }

    @Test(
        "a request the server fails (500) is logged at error level with what failed and a reference; the client gets the reference, not what failed; a 404 is not logged"
    )
    func serverFailures() async throws {
        let records = LogRecords()
        let responder = try responder(
            logLevel: .error, records: records,
            templates: [
                "pages/list.mustache": "{{>pages/again}}",
                "pages/again.mustache": "{{#links}}{{>pages/again}}{{/links}}",
            ])
        let missing = await responder.respond(to: try Request(method: .get, target: "/nowhere"))
        #expect(missing.status == .notFound)
        let list = await responder.respond(to: try Request(method: .get, target: "/a"))
        #expect(list.status == .internalServerError)
        let problem = await responder.respond(
            to: try Request(method: .get, target: "/a", headers: ["Accept": "application/json"]))
        #expect(problem.status == .internalServerError)
        let failures = records.entries.withLock { entries in entries.filter { $0.message == "request failed" } }
        #expect(failures.count == 2)
        let logged = failures.map { $0.metadata.mapValues { "\($0)" } }
        #expect(logged.allSatisfy { $0["method"] == "GET" && $0["path"] == "/a" && $0["status"] == "500" })
        #expect(logged.allSatisfy { $0["detail"]?.contains("rendering \"pages/list\" stopped") == true }, "\(logged)")
        let references = logged.compactMap { $0["reference"] }
        #expect(references.count == 2 && references[0] != references[1], "\(references)")
        // The page and the problem document name the reference, and nothing of what failed.
        let page = String(decoding: list.body, as: UTF8.self)
        #expect(page.contains("under reference \(references.first ?? "none")."), "\(page)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(problem.body)) as? [String: Any], "\(problem.body)")
        #expect(document["reference"] as? String == references.last)
        #expect((document["detail"] as? String)?.contains(references.last ?? "none") == true)
        for answer in [page, String(decoding: problem.body, as: UTF8.self)] {
            #expect(!answer.contains("pages/") && !answer.contains("stopped"), "\(answer)")
        }
    }

    @Test("at debug level every request is logged with its method, path and status, immediate answers included")
    func debugLevel() async throws {
        let records = LogRecords()
        let responder = try responder(logLevel: .debug, records: records)
        _ = await responder.respond(to: try Request(method: .get, target: "/"))  // computes the initial state
        let home = try #require(responder.immediateResponse(to: try Request(method: .get, target: "/")))
        #expect(home.status == .seeOther)
        let missing = await responder.respond(to: try Request(method: .get, target: "/nowhere"))
        #expect(missing.status == .notFound)
        let logged = records.requests
        #expect(logged.map { $0["path"] } == ["/", "/", "/nowhere"])
        #expect(logged.map { $0["status"] } == ["303", "303", "404"])
        #expect(logged.allSatisfy { $0["method"] == "GET" && $0["duration"] != nil })
    }

    @Test("above debug level nothing is logged per request")
    func infoLevel() async throws {
        let records = LogRecords()
        let responder = try responder(logLevel: .info, records: records)
        _ = await responder.respond(to: try Request(method: .get, target: "/nowhere"))
        #expect(records.requests.isEmpty)
    }
}
