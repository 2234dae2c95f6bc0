import MicroHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The same fixed page as `limit/fixed_page.c`, served through MicroHTTP's full path (request
/// parsing, async responder, suspend/resume), to measure what our Swift layer costs.
///
///     MicroHTTPFixedPage PORT PAGE_FILE [THREADS]
@main
enum MicroHTTPFixedPage {
    struct FixedPage: HTTPResponder {
        let page: Response

        init(page: [UInt8]) {
            self.page = Response(status: .ok, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
        }

        func respond(to request: Request) async -> Response { page }

        func immediateResponse(to request: Request) -> Response? { page }
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3, let port = Int(arguments[1]) else {
            print("usage: MicroHTTPFixedPage PORT PAGE_FILE [THREADS]")
            exit(2)
        }
        guard let file = fopen(arguments[2], "rb") else {
            print("cannot read \(arguments[2])")
            exit(1)
        }
        var page: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { page += chunk[..<count] }
        fclose(file)
        let threads = arguments.count > 3 ? Int(arguments[3]) ?? 2 : 2
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: port, threads: threads),
            responder: FixedPage(page: page))
        try server.start()
        print("listening on http://127.0.0.1:\(server.port)")
        await server.run()
    }
}
