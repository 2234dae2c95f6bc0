import Foundation
import MoviesDemo

/// Writes, as JSON, the data FlowServer renders for `/movies/ID` in an onboarded session (the
/// movie page's view model, and the layout's context as FlowWeb's PageComposer builds it), so
/// the benchmark peer renders the same templates with the same data.
///
/// `PeerData ID` prints the JSON.
@main
enum PeerData {
    static func main() throws {
        let id = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1
        let catalog = MovieCatalog.demo
        guard let movie = catalog.movie(id) else {
            FileHandle.standardError.write(Data("no movie \(id) in the demo catalog\n".utf8))
            exit(2)
        }
        // Links of the shape FlowWeb writes: /_step/<name>?<params>&_from=<node>&_r=<16 hex>.
        let cast = movie.cast.compactMap(catalog.member).map {
            ["label": $0.name, "href": "/_step/castIsPicked?withId=\($0.id)&_from=9&_r=3f9a0c4be1d27a65"]
        }
        let page: [String: Any] = [
            "title": movie.title, "year": movie.year, "synopsis": movie.synopsis, "cast": cast,
            "embedded": [Any](), "formFields": "",
        ]
        let tabs: [[String: Any]] = [
            ["title": "Wishlist", "url": "/movies/\(id)", "selected": true],
            ["title": "Watched", "url": "/watched", "selected": false],
            ["title": "Trending", "url": "/trending", "selected": false],
        ]
        let layout: [String: Any] = [
            "siteName": "FlowServer Movies", "title": "\(movie.title) · FlowServer Movies",
            "main": ["title": movie.title, "back": "/wishlist"], "tabBar": ["tabs": tabs],
            "csrf": "5b1e0f9c2d7a48e3b6c1f0a9d8e7c6b5",
        ]
        let data = try JSONSerialization.data(withJSONObject: ["page": page, "layout": layout], options: [.sortedKeys])
        FileHandle.standardOutput.write(data)
    }
}
