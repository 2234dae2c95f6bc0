import FlowCore
import Testing

/// A page's path keeps its literal text and percent-encodes each value as one segment
/// (issue "A newcomer's first hour", point 2).
@Suite("Page paths")
struct PagePathTests {
    private struct Named: Page {
        static let name = "named"
        var name: String
        var path: PagePath { "/hello/\(name)" }
    }

    @Test(
        "a value is one segment, percent-encoded where a path could not hold it",
        arguments: [
            ("Ada", "/hello/Ada"), ("50%", "/hello/50%25"), ("x?y", "/hello/x%3Fy"), ("a#b", "/hello/a%23b"),
            ("a/b", "/hello/a%2Fb"), ("two words", "/hello/two%20words"), ("Zoë", "/hello/Zo%C3%AB"),
            ("東京", "/hello/%E6%9D%B1%E4%BA%AC"), ("a\"b<c>", "/hello/a%22b%3Cc%3E"), ("", "/hello/"),
            ("-._~!$&'()*+,;=:@", "/hello/-._~!$&'()*+,;=:@"),
        ])
    func encoded(name: String, path: String) {
        #expect(Named(name: name).path.encoded == path)
        #expect(AnyPage(Named(name: name)).path == path)
    }

    @Test("literal text and numbers are as written")
    func literals() {
        let id = 42
        let path: PagePath = "/movies/\(id)/cast"
        #expect(path.encoded == "/movies/42/cast" && path.description == "/movies/42/cast")
        #expect(("/wishlist" as PagePath).encoded == "/wishlist")
        #expect(PagePath(encoded: "/a%20b").encoded == "/a%20b")
        #expect(PagePath.encodeSegment("a b/c") == "a%20b%2Fc")
    }
}
