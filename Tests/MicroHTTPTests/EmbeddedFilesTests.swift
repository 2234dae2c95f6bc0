import FlowTesting
import MicroHTTP
import Testing

@Suite("Embedded files")
struct EmbeddedFilesTests {
    private let files = EmbeddedFiles(
        files: ["site.css": Array("body { margin: 0 }".utf8), "js/app.js": Array("go()".utf8)], urlPrefix: "/public")

    @Test("serves its files with their content type, an ETag from the content, and 304 to a match")
    func serves() async throws {
        var router = Router()
        router.add(.get, "/public/**", responder: files)
        try await withServer(responder: router) { server throws in
            let css = try await fetch(port: server.port, "/public/site.css")
            #expect(css.status == 200 && css.text == "body { margin: 0 }")
            #expect(css.header("Content-Type") == "text/css; charset=utf-8")
            #expect(css.header("X-Content-Type-Options") == "nosniff" && css.header("Cache-Control") == "no-cache")
            let etag = try #require(css.header("ETag"))
            #expect(
                try await fetch(port: server.port, "/public/site.css", headers: [("If-None-Match", etag)]).status == 304
            )
            #expect(
                try await fetch(port: server.port, "/public/site.css", headers: [("If-None-Match", "\"other\"")]).status
                    == 200)
            let script = try await fetch(port: server.port, "/public/js/app.js")
            #expect(script.text == "go()" && script.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(script.header("ETag") != etag)
            let head = try await fetch(port: server.port, "/public/site.css", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == "18")
            #expect(try await fetch(port: server.port, "/public/missing.css").status == 404)
            #expect(try await fetch(port: server.port, "/public").status == 404)
        }
    }

    @Test("knows which requests it serves, and refuses other methods")
    func servesAndMethods() async throws {
        #expect(files.names == ["js/app.js", "site.css"])
        #expect(files.serves(try Request(method: .get, target: "/public/site.css")))
        #expect(!files.serves(try Request(method: .get, target: "/public/other.css")))
        let post = await files.respond(to: try Request(method: .post, target: "/public/site.css"))
        #expect(post.status == .methodNotAllowed && post.headers["Allow"] == "GET, HEAD")
    }
}
