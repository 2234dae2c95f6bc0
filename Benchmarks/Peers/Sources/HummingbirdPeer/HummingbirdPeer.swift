import Foundation
import Hummingbird
import Mustache

/// Serves `GET /movies/{id}` the way FlowServer renders it: the `pages/movie` fragment, then the
/// `layout` around it, with swift-mustache and a dictionary context (its fastest), from the data
/// FlowServer renders for that page (written by the benchmarks' PeerData tool).
///
/// `HummingbirdPeer PORT TEMPLATES_DIRECTORY DATA_JSON`
@main
struct HummingbirdPeer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let port = Int(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: HummingbirdPeer PORT TEMPLATES_DIRECTORY DATA_JSON\n".utf8))
            exit(2)
        }
        let library = try await MustacheLibrary(directory: arguments[2])
        let data = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: arguments[3]))) as? [String: Any] ?? [:]
        let page = PageData(page: data["page"] as? [String: Any] ?? [:], layout: data["layout"] as? [String: Any] ?? [:])

        let router = Router()
        router.get("movies/:id") { _, _ -> HTML in
            let fragment = library.render(page.page, withTemplate: "pages/movie") ?? ""
            var layout = page.layout
            var main = layout["main"] as? [String: Any] ?? [:]
            main["html"] = fragment
            layout["main"] = main
            return HTML(text: library.render(layout, withTemplate: "layout") ?? "")
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}

/// The page's data, read once (immutable afterwards, so shared by every request).
struct PageData: @unchecked Sendable {
    // @unchecked: dictionaries of JSON values, never mutated after start.
    let page: [String: Any]
    let layout: [String: Any]
}

/// An HTML page as a response.
struct HTML: ResponseGenerator {
    let text: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
