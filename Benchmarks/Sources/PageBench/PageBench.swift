import FlowStore
import FlowWeb
import Foundation
import MicroHTTP
import MoviesDemo
import MustacheTemplates

/// The application half of a page request, without HTTP: `GET /movies/1` for an onboarded
/// session answered by the responder in process, memory store. Prints µs a page (median of rounds).
@main
enum PageBench {
    static func main() async throws {
        let templates = try FlowWebDefaults.templates(
            directory: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "../Templates")
        let responder = FlowWebResponder(
            app: try MoviesDemo.webApp(), store: MemorySessionStore(), templates: templates)
        let created = await responder.respond(
            to: try Request(
                method: .post, target: "/api/v1/sessions", headers: ["Content-Type": "application/json"],
                body: Array("{}".utf8)))
        let text = String(decoding: created.body, as: UTF8.self)
        guard let range = text.range(of: #""session":""#), let end = text[range.upperBound...].firstIndex(of: "\"")
        else { fatalError(text) }
        let id = String(text[range.upperBound..<end])
        for step in [
            #"{"name":"userIsLoggedIn","params":{"name":"Ada"}}"#,
            #"{"name":"apiKeyIsFilledIn","params":{"apiKey":"bench-key"}}"#,
            #"{"name":"movieIsPicked","params":{"withId":1}}"#,
        ] {
            let answer = await responder.respond(
                to: try Request(
                    method: .post, target: "/api/v1/session/steps",
                    headers: ["Content-Type": "application/json", "Authorization": "Bearer \(id)"],
                    body: Array(#"{"step":\#(step)}"#.utf8)))
            guard answer.status == HTTPStatus.ok else { fatalError("step answered \(answer.status)") }
        }
        let request = try Request(
            method: .get, target: "/movies/1", headers: ["Host": "127.0.0.1", "Cookie": "flowserver_session=\(id)"])
        guard let first = responder.immediateResponse(to: request), first.status == HTTPStatus.ok else {
            fatalError("no immediate page")
        }
        let iterations = Int(ProcessInfo.processInfo.environment["ITER"] ?? "") ?? 200_000
        let threads = Int(ProcessInfo.processInfo.environment["THREADS"] ?? "") ?? 1
        var rounds: [Double] = []
        for _ in 0..<7 {
            let start = ContinuousClock.now
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<iterations / 7 { _ = responder.immediateResponse(to: request) }
            }
            let elapsed = ContinuousClock.now - start
            let (s, a) = elapsed.components
            rounds.append((Double(s) * 1e6 + Double(a) / 1e12) / Double(iterations / 7))
        }
        rounds.sort()
        print(
            "page (in process): median \(String(format: "%.2f", rounds[3])) µs, spread \(String(format: "%.2f", rounds[0]))–\(String(format: "%.2f", rounds[6])), \(first.body.count) bytes"
        )
    }
}
