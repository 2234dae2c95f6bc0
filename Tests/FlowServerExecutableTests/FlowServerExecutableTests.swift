import Foundation
import Testing

/// The `flowserver` executable as a user runs it (CONTRACT.md §7). These tests start real
/// processes, so they run one after another.
@Suite("flowserver executable", .serialized)
struct FlowServerExecutableTests {
    @Test("prints its address, serves /healthz and /public, and stops on SIGTERM")
    func servesAndStops() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowserver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Public"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "body{}".write(to: directory.appendingPathComponent("Public/site.css"), atomically: true, encoding: .utf8)

        let server = try FlowServerProcess(["--port", "0", "--store", "memory", "--public", directory.appendingPathComponent("Public").path])
        let port = try #require(server.listeningPort())
        #expect(port > 0)
        #expect(statusOfGet(port: port, path: "/healthz") == 200)
        #expect(statusOfGet(port: port, path: "/public/site.css") == 200)
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
        let fromEnvironment = try FlowServerProcess([], environment: ["FLOWSERVER_PORT": "0", "FLOWSERVER_STORE": "memory"])
        let port = try #require(fromEnvironment.listeningPort())
        #expect(statusOfGet(port: port, path: "/healthz") == 200)
        fromEnvironment.process.terminate()
        _ = fromEnvironment.waitForExit()

        let overridden = try FlowServerProcess(["--port", "0"], environment: ["FLOWSERVER_PORT": "1", "FLOWSERVER_STORE": "memory"])
        #expect(try #require(overridden.listeningPort()) != 1)
        overridden.process.terminate()
        _ = overridden.waitForExit()
    }

    @Test(
        "a bad flag prints one line on standard error and exits with status 2",
        arguments: [
            (["--port", "abc"], [String: String]()), (["--port", "70000"], [:]), (["--store", "redis://x"], [:]),
            (["--threads", "0"], [:]), (["--log-level", "loud"], [:]), (["--no-such-flag"], [:]),
            ([], ["FLOWSERVER_SECURE_COOKIES": "maybe"]), ([], ["FLOWSERVER_PORT": "eighty"]),
        ])
    func badFlags(arguments: [String], environment: [String: String]) throws {
        let server = try FlowServerProcess(arguments, environment: environment)
        #expect(server.waitForExit() == 2)
        let message = server.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(message.hasPrefix("flowserver: "))
        #expect(!message.contains("\n"), "one line, got: \(message)")
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
        for flag in ["--host", "--port", "--store", "--templates", "--public", "--session-ttl", "--threads",
                     "--max-body", "--secure-cookies", "--log-level", "FLOWSERVER_"] {
            #expect(text.contains(flag), "\(flag) missing from --help")
        }
    }
}

@Suite("flowserver serves the Movies demo", .serialized)
struct DemoProcessTests {
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

    @Test("a store that is not available, or templates that are missing, exit 1 with one line")
    func unavailable() throws {
        let sqlite = try FlowServerProcess(["--port", "0"])
        #expect(sqlite.waitForExit() == 1)
        #expect(sqlite.standardError.contains("run with --store memory"))
        let templates = try FlowServerProcess(["--port", "0", "--store", "memory", "--templates", "/nonexistent"])
        #expect(templates.waitForExit() == 1)
        #expect(templates.standardError.contains("cannot load the templates"))
    }
}
