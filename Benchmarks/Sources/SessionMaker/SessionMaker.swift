import FlowTesting
import Foundation

/// Creates demo sessions on a running flowserver through its JSON API, for the benchmarks:
/// each session is created, then sent the given steps (JSON `{"name","params"}`) from its top
/// page. With `--forms`, the top page is fetched with the session's cookie and its CSRF token and
/// `_from` node are printed too.
///
/// `SessionMaker PORT COUNT [--forms] [--workers N] STEP_JSON...` prints one line per session:
/// `id [csrf from topURL]`.
@main
enum SessionMaker {
    static func main() {
        do {
            try run()
        } catch {
            FileHandle.standardError.write(Data("SessionMaker: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2, let port = Int(arguments[0]), let count = Int(arguments[1]) else {
            throw MakerError("usage: SessionMaker PORT COUNT [--forms] [--workers N] STEP_JSON...")
        }
        arguments.removeFirst(2)
        var forms = false
        var workers = 8
        var steps: [String] = []
        while !arguments.isEmpty {
            let argument = arguments.removeFirst()
            switch argument {
            case "--forms": forms = true
            case "--workers": workers = arguments.isEmpty ? workers : Int(arguments.removeFirst()) ?? workers
            default: steps.append(argument)
            }
        }
        let options = (forms: forms, workers: workers, steps: steps)
        let lines = Mutex(Array(repeating: "", count: count))
        let failure = Mutex<String?>(nil)
        DispatchQueue.concurrentPerform(iterations: options.workers) { worker in
            do {
                let connection = try TestConnection(port: port)
                for index in stride(from: worker, to: count, by: options.workers) {
                    let line = try make(connection, steps: options.steps, forms: options.forms)
                    lines.withLock { $0[index] = line }
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        if let message = failure.withLock({ $0 }) { throw MakerError(message) }
        FileHandle.standardOutput.write(Data((lines.withLock { $0 }.joined(separator: "\n") + "\n").utf8))
    }

    /// One session: created, sent `steps`, and with `forms` its top page's form fields read.
    static func make(_ connection: TestConnection, steps: [String], forms: Bool) throws -> String {
        let created = try connection.request(
            "POST", "/api/v1/sessions", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        guard created.status == 201, let id = created.text.value(after: #""session":""#, until: "\"") else {
            throw MakerError("creating a session answered \(created.status): \(created.text.prefix(200))")
        }
        var top = topURL(created.text) ?? "/"
        for step in steps {
            let answer = try connection.request(
                "POST", "/api/v1/session/steps",
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(id)")],
                body: Array(#"{"step":\#(step)}"#.utf8))
            guard answer.status == 200 else {
                throw MakerError("step \(step) answered \(answer.status): \(answer.text.prefix(200))")
            }
            top = topURL(answer.text) ?? top
        }
        guard forms else { return id }
        let page = try connection.request("GET", top, headers: [("Cookie", "flowserver_session=\(id)")])
        guard page.status == 200, let csrf = page.text.value(after: #"name="_csrf" value=""#, until: "\""),
            let from = page.text.value(after: #"name="_from" value=""#, until: "\"")
        else {
            throw MakerError("the top page \(top) answered \(page.status) without form fields")
        }
        return "\(id) \(csrf) \(from) \(top)"
    }

    /// The top page's URL in an answer carrying a State.
    static func topURL(_ json: String) -> String? {
        json.value(after: #""top":{"#, until: "}").flatMap { $0.value(after: #""url":""#, until: "\"") }
    }
}

extension String {
    /// The text between the first `start` and the next `end`.
    func value(after start: String, until end: String) -> String? {
        guard let from = range(of: start)?.upperBound, let to = self[from...].range(of: end)?.lowerBound else {
            return nil
        }
        return String(self[from..<to])
    }
}

/// A lock around a value (the workers' shared results).
final class Mutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}

struct MakerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
