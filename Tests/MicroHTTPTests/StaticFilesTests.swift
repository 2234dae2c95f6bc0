import FlowTesting
import Foundation
import MicroHTTP
import Testing

/// A temporary site: `root/Public` with a few files, a secret beside it and a symlink out.
private struct Site {
    let root: URL
    var publicDirectory: String { root.appendingPathComponent("Public").path }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("microhttp-static-\(UUID().uuidString)")
        let files = root.appendingPathComponent("Public")
        try FileManager.default.createDirectory(
            at: files.appendingPathComponent("css"), withIntermediateDirectories: true)
        try "body { color: red }".write(
            to: files.appendingPathComponent("css/site.css"), atomically: true, encoding: .utf8)
        try "<svg xmlns=\"http://www.w3.org/2000/svg\"/>".write(
            to: files.appendingPathComponent("logo.svg"), atomically: true, encoding: .utf8)
        try "<p>hi</p>".write(to: files.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        try "console.log(1)".write(to: files.appendingPathComponent("app.js"), atomically: true, encoding: .utf8)
        try Data([1, 2, 3]).write(to: files.appendingPathComponent("blob.bin"))
        try "hidden".write(to: files.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
        try "TOP SECRET".write(to: root.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: files.appendingPathComponent("escape.txt").path, withDestinationPath: "../secret.txt")
        try FileManager.default.createSymbolicLink(
            atPath: files.appendingPathComponent("up").path, withDestinationPath: "..")
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    func router() -> Router {
        var router = Router()
        router.add(.get, "/public/**", responder: StaticFiles(directory: publicDirectory, urlPrefix: "/public"))
        return router
    }
}

@Suite("Static files")
struct StaticFilesTests {
    @Test("serves files with their content type, ETag and Cache-Control")
    func contentTypes() async throws {
        let site = try Site()
        defer { site.remove() }
        try await withServer(responder: site.router()) { server throws in
            let expected = [
                "/public/css/site.css": "text/css; charset=utf-8",
                "/public/logo.svg": "image/svg+xml",
                "/public/page.html": "text/html; charset=utf-8",
                "/public/app.js": "text/javascript; charset=utf-8",
                "/public/blob.bin": "application/octet-stream",
            ]
            for (path, type) in expected {
                let response = try await fetch(port: server.port, path)
                #expect(response.status == 200, "\(path)")
                #expect(response.header("Content-Type") == type, "\(path)")
                #expect(response.header("ETag")?.hasPrefix("\"") == true)
                #expect(response.header("Cache-Control") == "no-cache")
            }
            #expect(try await fetch(port: server.port, "/public/css/site.css").text == "body { color: red }")
            let head = try await fetch(port: server.port, "/public/css/site.css", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == "19")
            #expect(try await fetch(port: server.port, "/public/missing.css").status == 404)
            #expect(try await fetch(port: server.port, "/public/css").status == 404)
        }
    }

    @Test("answers 304 to a matching If-None-Match and 200 to a stale one")
    func conditionalRequests() async throws {
        let site = try Site()
        defer { site.remove() }
        try await withServer(responder: site.router()) { server throws in
            let first = try await fetch(port: server.port, "/public/logo.svg")
            let etag = try #require(first.header("ETag"))
            let cached = try await fetch(port: server.port, "/public/logo.svg", headers: [("If-None-Match", etag)])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            #expect(cached.header("ETag") == etag)
            let weak = try await fetch(
                port: server.port, "/public/logo.svg", headers: [("If-None-Match", "\"x\", W/\(etag)")])
            #expect(weak.status == 304)
            let stale = try await fetch(
                port: server.port, "/public/logo.svg", headers: [("If-None-Match", "\"stale\"")])
            #expect(stale.status == 200)
        }
    }

    @Test(
        "never serves a file outside the directory",
        arguments: [
            "/public/../secret.txt", "/public/%2e%2e/secret.txt", "/public/%2E%2E/secret.txt",
            "/public/..%2fsecret.txt", "/public/..%2Fsecret.txt", "/public/%2e%2e%2fsecret.txt",
            "/public/css/../../secret.txt", "/public/css/%2e%2e/%2e%2e/secret.txt", "/public//secret.txt",
            "/public/%2Fetc%2Fpasswd", "/public//etc/passwd", "/public/..%5csecret.txt", "/public/escape.txt",
            "/public/up/secret.txt", "/public/.env", "/public/./css/site.css", "/public/%00secret.txt",
        ])
    func traversal(target: String) async throws {
        let site = try Site()
        defer { site.remove() }
        try await withServer(responder: site.router()) { server throws in
            let response = try await fetch(port: server.port, target)
            #expect(response.status == 404 || response.status == 400, "\(target) answered \(response.status)")
            #expect(!response.text.contains("TOP SECRET"))
            #expect(!response.text.contains("root:"))
        }
    }

    @Test("a missing directory serves nothing rather than failing")
    func missingDirectory() async throws {
        var router = Router()
        router.add(.get, "/public/**", responder: StaticFiles(directory: "/nonexistent-\(UUID().uuidString)"))
        try await withServer(responder: router) { server throws in
            #expect(try await fetch(port: server.port, "/public/a.css").status == 404)
        }
    }
}
