import FlowTesting
import Foundation
import ProcessTestSupport
import Testing

/// The `flowserver` executable as a user runs it (Docs/CONTRACT.md §7). These tests start real
/// processes, so they run one after another.
@Suite("flowserver executable", .serialized)
struct FlowServerExecutableTests {
    @Test("prints its address, serves /healthz and /public (its files over FlowServer's), and stops on SIGTERM")
    func servesAndStops() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowserver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("Public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "body{}".write(to: directory.appendingPathComponent("Public/site.css"), atomically: true, encoding: .utf8)

        let server = try FlowServerProcess([
            "--port", "0", "--store", "memory", "--public", directory.appendingPathComponent("Public").path,
        ])
        let port = try #require(server.listeningPort())
        #expect(port > 0)
        #expect(statusOfGet(port: port, path: "/healthz") == 200)
        #expect(try TestConnection(port: port).request("GET", "/public/site.css").text == "body{}")
        #expect(try TestConnection(port: port).request("GET", "/public/site.js").text.contains("addEventListener"))
        #expect(statusOfGet(port: port, path: "/public/missing.css") == 404)
        server.process.terminate()  // SIGTERM
        #expect(server.waitForExit() == 0)
        #expect(statusOfGet(port: port, path: "/healthz") == 0)
    }

    @Test("stops gracefully on SIGINT too")
    func sigint() throws {
        let server = try FlowServerProcess(["--port", "0", "--store", "memory"])
        let port = try #require(server.listeningPort())
        #expect(statusOfGet(port: port, path: "/healthz") == 200)
        server.process.interrupt()
        #expect(server.waitForExit() == 0)
    }

    @Test("reads FLOWSERVER_* environment variables; a flag on the command line wins")
    func environment() throws {
        let fromEnvironment = try FlowServerProcess(
            [], environment: ["FLOWSERVER_PORT": "0", "FLOWSERVER_STORE": "memory"])
        let port = try #require(fromEnvironment.listeningPort())
        #expect(statusOfGet(port: port, path: "/healthz") == 200)
        fromEnvironment.process.terminate()
        _ = fromEnvironment.waitForExit()

        let overridden = try FlowServerProcess(
            ["--port", "0"], environment: ["FLOWSERVER_PORT": "1", "FLOWSERVER_STORE": "memory"])
        #expect(try #require(overridden.listeningPort()) != 1)
        overridden.process.terminate()
        _ = overridden.waitForExit()
    }

    @Test(
        "a bad flag or variable prints one line that says what is wrong, and exits with status 2",
        arguments: [
            (["--port", "abc"], [String: String](), "'abc' is invalid for '--port <port>'"),
            (["--port", "-1"], [:], "--port must be in 0...65535, got -1"),
            (["--port", "70000"], [:], "--port must be in 0...65535, got 70000"),
            (["--threads", "0"], [:], "--threads must be at least 1, got 0"),
            (["--session-ttl", "-5"], [:], "--session-ttl must be at least 1 second, got -5"),
            (["--max-session-nodes", "-3"], [:], "--max-session-nodes must be at least 1, got -3"),
            (
                ["--store", "redis://x"], [:],
                "'memory', 'sqlite:PATH' or 'postgres://USER:PASSWORD@HOST:PORT/DATABASE'"
            ),
            (
                ["--store", "nonsense:"], [:],
                "'memory', 'sqlite:PATH' or 'postgres://USER:PASSWORD@HOST:PORT/DATABASE'"
            ),
            (["--log-level", "loud"], [:], "trace, debug, info, notice, warning, error, critical"),
            (["--no-such-flag"], [:], "Unknown option '--no-such-flag'"),
            (
                [], ["FLOWSERVER_SECURE_COOKIES": "maybe"],
                "FLOWSERVER_SECURE_COOKIES=maybe is not a boolean (use 1 or 0)"
            ),
            ([], ["FLOWSERVER_PORT": "eighty"], "'eighty' is invalid for '--port <port>'"),
        ])
    func badFlags(arguments: [String], environment: [String: String], says expected: String) throws {
        let server = try FlowServerProcess(arguments, environment: environment)
        #expect(server.waitForExit() == 2)
        let message = server.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(message.hasPrefix("flowserver: ") && message.contains(expected), "got: \(message)")
        #expect(message.hasSuffix("(see flowserver --help)"), "got: \(message)")
        #expect(!message.contains("\n"), "one line, got: \(message)")
    }

    @Test(
        "a subcommand's bad flag says what is wrong in one line with the subcommand's --help, and exits with status 2",
        arguments: [
            (["explore", "--depth", "-3"], "flowserver explore: --depth must be at least 1, got -3"),
            (["explore", "--format", "png"], "flowserver explore: The value 'png' is invalid for '--format <format>'"),
            (["explore", "--bogus"], "flowserver explore: Unknown option '--bogus'"),
            (
                ["sessions", "check", "--page-size", "-1"],
                "flowserver sessions: --page-size must be at least 1, got -1"
            ),
            (["sessions", "check", "--store", "nonsense:"], "'memory', 'sqlite:PATH' or 'postgres://"),
        ])
    func badSubcommandFlags(arguments: [String], says expected: String) throws {
        let process = try FlowServerProcess(arguments)
        #expect(process.waitForExit() == 2)
        let message = process.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(message.contains(expected), "got: \(message)")
        #expect(message.hasSuffix("(see flowserver \(arguments[0]) --help)"), "got: \(message)")
        #expect(!message.contains("\n"), "one line, got: \(message)")
    }

    @Test("a SQLite file whose directory is missing or is a file: one line that says so, exit 1, nothing created")
    func sqliteDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowserver-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file").path
        try Data("a file".utf8).write(to: URL(fileURLWithPath: file))
        let missing = directory.appendingPathComponent("missing").path
        for (store, expected) in [
            ("sqlite:\(missing)/x.sqlite", "the directory \(missing) does not exist (create it first)"),
            ("sqlite:\(file)/x.sqlite", "\(file) is a file, not a directory"),
        ] {
            let server = try FlowServerProcess(["--port", "0", "--store", store])
            #expect(server.waitForExit() == 1)
            let message = server.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(message.contains(expected) && message.contains("--store takes memory, sqlite:PATH"), "\(message)")
            #expect(!message.contains("\n") && !message.contains("NSCocoaErrorDomain"), "\(message)")
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("a port that is taken exits with status 1 and says what to do")
    func portInUse() throws {
        let first = try FlowServerProcess(["--port", "0", "--store", "memory"])
        let port = try #require(first.listeningPort())
        let second = try FlowServerProcess(["--port", "\(port)", "--store", "memory"])
        #expect(second.waitForExit() == 1)
        #expect(second.standardError.contains("cannot listen on 127.0.0.1:\(port)"))
        first.process.terminate()
        _ = first.waitForExit()
    }

    @Test("--help describes every flag and exits 0")
    func help() throws {
        let help = try FlowServerProcess(["--help"])
        #expect(help.waitForExit() == 0)
        let text = help.standardOutput
        for flag in [
            "--host", "--port", "--store", "--templates", "--public", "--session-ttl", "--threads",
            "--max-body", "--max-connections", "--max-connections-per-client", "--read-timeout", "--idle-timeout",
            "--session-secret", "--new-sessions-per-minute", "--new-session-burst", "--trusted-proxy",
            "--secure-cookies", "--log-level", "FLOWSERVER_", "SUBCOMMANDS", "flowserver explore",
            "flowserver sessions",
        ] {
            #expect(text.contains(flag), "\(flag) missing from --help")
        }
        // Each default once, each list of choices once and whole.
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("the default is one per core. (default: "))
        #expect(!flat.contains("cores). (default"))
        #expect(flat.components(separatedBy: "trace, debug").count == 2)
        #expect(flat.contains("(values: trace, debug, info, notice, warning, error, critical; default: info)"))
    }
}

@Suite("flowserver explore")
struct ExploreCommandTests {
    private var templates: String { FlowServerProcess.repository.appendingPathComponent("Templates").path }

    @Test("writes the demo's navigation graph as DOT, exits 0 without findings, and says what it saw")
    func dot() throws {
        let explore = try FlowServerProcess(["explore", "--templates", templates, "--depth", "4"])
        // The graph (about 10 KB) fits the pipe: read it once the process ended.
        let status = explore.waitForExit(seconds: 60)
        let graph = explore.standardOutput
        let report = explore.standardError
        #expect(status == 0, "\(report)")
        #expect(graph.hasPrefix("digraph \"flowserver\" {") && graph.contains("subgraph \"cluster_wishlist\""))
        #expect(graph.contains("\"onboarding.login\" -> \"onboarding.apikey\" [label=\"userIsLoggedIn\"]"))
        #expect(report.contains("0 findings"), "\(report)")
    }

    @Test("explore reports a session coming near the limits it is given (--max-session-nodes), once per limit")
    func exploreAgainstLimits() throws {
        let explore = try FlowServerProcess(
            ["explore", "--templates", templates, "--depth", "3", "--max-session-nodes", "16"])
        let status = explore.waitForExit(seconds: 60)
        let report = explore.standardError
        #expect(status == 1, "\(report)")
        let near = report.split(separator: "\n").filter { $0.hasPrefix("limitReachable:") }
        #expect(near.count == 1 && near[0].hasSuffix("of at most 16 (nodes)"), "\(report)")
    }

    @Test("writes SVG with Graphviz to --output; a bad format is exit status 2")
    func svg() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("flows-\(UUID().uuidString).svg")
        let explore = try FlowServerProcess([
            "explore", "--templates", templates, "--format", "svg", "--output", output.path,
        ])
        #expect(explore.waitForExit(seconds: 60) == 0, "\(explore.standardError)")
        let svg = try String(contentsOf: output, encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("<title>onboarding.login</title>"))
        let bad = try FlowServerProcess(["explore", "--format", "png"])
        #expect(bad.waitForExit() == 2)
        #expect(bad.standardError.contains("png"))
    }
}

@Suite("flowserver serves the Movies demo", .serialized)
struct DemoProcessTests {
    @Test("a --public directory that does not exist is reported, and FlowServer's own files are served")
    func missingPublicDirectory() throws {
        let server = try FlowServerProcess(["--port", "0", "--store", "memory", "--public", "/nonexistent-public"])
        let port = try #require(server.listeningPort())
        #expect(statusOfGet(port: port, path: "/public/site.css") == 200)
        server.process.terminate()
        #expect(server.waitForExit() == 0)
        #expect(
            server.standardError.contains(
                "--public /nonexistent-public is not a directory: /public serves FlowServer's default files only"))
    }

    @Test("a new visitor is sent to onboarding; /movies/999999 is a 404; the inspector answers")
    func demo() throws {
        let server = try FlowServerProcess(["--port", "0", "--store", "memory"])
        let port = try #require(server.listeningPort())
        #expect(statusOfGet(port: port, path: "/") == 303)
        #expect(statusOfGet(port: port, path: "/movies/999999") == 404)
        #expect(statusOfGet(port: port, path: "/_inspector") == 200)
        #expect(statusOfGet(port: port, path: "/public/site.css") == 200)
        server.process.terminate()
        #expect(server.waitForExit() == 0)
    }

    @Test("the navigation graph is explored ahead, from the start, and /_inspector/graph draws it as SVG")
    func graphAhead() async throws {
        let server = try FlowServerProcess(["--port", "0", "--store", "memory"])
        let port = try #require(server.listeningPort())
        // No request has asked for it.
        #expect(server.waitForStandardError(containing: "navigation graph explored ahead", seconds: 60))
        let page = try await fetch(port: port, "/_inspector/graph")
        #expect(page.status == 200)
        #expect(page.text.contains(#"<svg xmlns="http://www.w3.org/2000/svg""#) && page.text.contains(#"role="img""#))
        #expect(page.text.contains(#"<g id="graph-wishlist.movie">"#))
        server.process.terminate()
        #expect(server.waitForExit() == 0)
        #expect(server.standardError.components(separatedBy: "navigation graph explored ahead").count == 2)
    }

    @Test("a store that is not available, or templates that are missing, exit 1 with one line")
    func unavailable() throws {
        let postgres = try FlowServerProcess(["--port", "0", "--store", "postgres://user:pass@127.0.0.1:1/db"])
        #expect(postgres.waitForExit() == 1)
        let printed = postgres.standardError
        #expect(printed.hasPrefix("flowserver: the session store is unavailable:"))
        // Nothing else: work for a server that serves (the exploration ahead) starts once it does.
        #expect(printed.split(separator: "\n").count == 1)
        let templates = try FlowServerProcess(["--port", "0", "--store", "memory", "--templates", "/nonexistent"])
        #expect(templates.waitForExit() == 1)
        #expect(templates.standardError.contains("cannot load the templates"))
    }

    @Test("a page whose template is missing stops the start, naming the page and the file looked for")
    func missingPageTemplate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowserver-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(
            at: FlowServerProcess.repository.appendingPathComponent("Templates"), to: directory)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("pages/cast.mustache"))
        let server = try FlowServerProcess(["--port", "0", "--store", "memory", "--templates", directory.path])
        #expect(server.waitForExit() == 1)
        #expect(
            server.standardError
                == "flowserver: the app cannot start: page \"cast\" (CastPage) has no template \"pages/cast\": looked for \(directory.path)/pages/cast.mustache\n"
        )
    }
}

@Suite("flowserver with the SQLite store", .serialized)
struct SQLiteProcessTests {
    private func call(_ port: Int, _ method: String, _ path: String, bearer: String? = nil, json: String? = nil) throws
        -> (Int, [String: Any])
    {
        var headers: [(String, String)] = []
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        let response = try TestConnection(port: port).request(
            method, path, headers: headers, body: Array((json ?? "").utf8))
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, object)
    }

    @Test("kill -9 right after acknowledged steps loses none of them; a restart keeps the session")
    func killNine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowserver-kill-\(UUID().uuidString)")
        // The server creates no directory but the default one (.data/).
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = "sqlite:\(directory.path)/sessions.sqlite"
        let first = try FlowServerProcess(["--port", "0", "--store", store])
        let port = try #require(first.listeningPort())
        let (created, body) = try call(port, "POST", "/api/v1/sessions")
        #expect(created == 201)
        let session = try #require(body["session"] as? String)
        for id in [1, 2, 3, 4, 5] {
            let (status, _) = try call(
                port, "POST", "/api/v1/session/steps", bearer: session,
                json: #"{"step":{"name":"movieIsPicked","params":{"withId":\#(id)}}}"#)
            #expect(status == 200)
        }
        kill(first.process.processIdentifier, SIGKILL)
        _ = first.waitForExit()
        let second = try FlowServerProcess(["--port", "0", "--store", store])
        let again = try #require(second.listeningPort())
        let (status, history) = try call(again, "GET", "/api/v1/session/history", bearer: session)
        #expect(status == 200)
        #expect((history["entries"] as? [[String: Any]])?.count == 6)
        let (_, state) = try call(again, "GET", "/api/v1/session", bearer: session)
        #expect(state["version"] as? Int == 6)
        second.process.terminate()
        #expect(second.waitForExit() == 0)
    }

    @Test(
        "one client pushing movies without end is refused at the stack depth limit; FLOWSERVER_MAX_STACK_DEPTH sets it")
    func boundedSession() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowserver-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (environment, limit) in [([:], 100), (["FLOWSERVER_MAX_STACK_DEPTH": "5"], 5)] {
            let server = try FlowServerProcess(
                ["--port", "0", "--store", "sqlite:\(directory.path)/\(limit).sqlite"], environment: environment)
            let port = try #require(server.listeningPort())
            let (_, body) = try call(port, "POST", "/api/v1/sessions")
            let session = try #require(body["session"] as? String)
            for step in [
                #"{"name":"userIsLoggedIn","params":{"name":"Ada"}}"#,
                #"{"name":"apiKeyIsFilledIn","params":{"apiKey":"k"}}"#,
            ] {
                #expect(
                    try call(port, "POST", "/api/v1/session/steps", bearer: session, json: #"{"step":\#(step)}"#).0
                        == 200)
            }
            let (_, onboarded) = try call(port, "GET", "/api/v1/session", bearer: session)
            var accepted = 0
            var refusal: [String: Any] = [:]
            for id in 1...150 {
                let (status, answer) = try call(
                    port, "POST", "/api/v1/session/steps", bearer: session,
                    json: #"{"step":{"name":"movieIsPicked","params":{"withId":\#(id % 20 + 1)}}}"#)
                guard status == 200 else {
                    #expect(status == 409)
                    refusal = answer
                    break
                }
                accepted += 1
            }
            #expect(refusal["limit"] as? String == "stack-depth" && refusal["maximum"] as? Int == limit)
            let (_, state) = try call(port, "GET", "/api/v1/session", bearer: session)
            #expect(deepestStack(state["root"]) == limit)
            let version = try #require(onboarded["version"] as? Int)
            #expect(state["version"] as? Int == version + accepted + 1, "each accepted step and the refused entry")
            server.process.terminate()
            #expect(server.waitForExit() == 0)
        }
    }

    /// The most children one flow holds in the State's `node` (a FlowNode or PageNode).
    private func deepestStack(_ node: Any?) -> Int {
        guard let node = node as? [String: Any] else { return 0 }
        let children = node["children"] as? [Any] ?? []
        return ([children.count, deepestStack(node["presented"])] + children.map(deepestStack)).max() ?? 0
    }

    @Test("a corrupt database file: one line on standard error and exit status 1")
    func corrupt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowserver-corrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 4096).write(to: directory.appendingPathComponent("bad.sqlite"))
        let server = try FlowServerProcess(["--port", "0", "--store", "sqlite:\(directory.path)/bad.sqlite"])
        #expect(server.waitForExit() == 1)
        let message = server.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(message.hasPrefix("flowserver: the session store is unavailable: cannot open the SQLite store"))
        #expect(!message.contains("\n"))
    }
}
