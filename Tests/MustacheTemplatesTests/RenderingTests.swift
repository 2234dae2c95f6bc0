import Foundation
import Testing

@testable import MustacheTemplates

private func render(_ template: String, _ context: TemplateValue, partials: [String: String] = [:]) throws -> String {
    var templates = partials
    templates["main"] = template
    return String(decoding: try TemplateLibrary(templates: templates).render("main", context: context), as: UTF8.self)
}

@Suite("Rendering")
struct RenderingTests {
    @Test("escapes <>&\"' in {{x}}, never in {{{x}}} or {{&x}}")
    func escaping() throws {
        let evil: TemplateValue = ["x": "<a href=\"x\" title='y'>&amp;</a>"]
        #expect(try render("{{x}}", evil) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(try render("{{{x}}}", evil) == "<a href=\"x\" title='y'>&amp;</a>")
        #expect(try render("{{&x}}", evil) == "<a href=\"x\" title='y'>&amp;</a>")
        #expect(try render("{{x}}", ["x": "plain text, no escapes"]) == "plain text, no escapes")
        #expect(try render("{{x}}", ["x": "é<ü>"]) == "é&lt;ü&gt;")
    }

    @Test(
        "escapes a character at every position of a long value (runs without escapes are copied, whatever their alignment)"
    )
    func escapingAtEveryPosition() throws {
        let entities: [Character: String] = ["<": "&lt;", ">": "&gt;", "&": "&amp;", "\"": "&quot;", "'": "&#39;"]
        for (special, entity) in entities {
            for position in 0..<24 {
                var text = Array(repeating: Character("a"), count: 24)
                text[position] = special
                let expected = String(text[..<position]) + entity + String(text[(position + 1)...])
                #expect(try render("{{x}}", ["x": .string(String(text))]) == expected)
            }
        }
        let mixed = "0123456789\"<>&'abcdefghijklmnop<q>"
        #expect(
            try render("{{x}}", ["x": .string(mixed)]) == "0123456789&quot;&lt;&gt;&amp;&#39;abcdefghijklmnop&lt;q&gt;")
    }

    @Test("escaping matches a character-by-character reference on random text of every length")
    func escapingMatchesReference() throws {
        let alphabet: [Character] = ["a", "Z", " ", "0", "/", "=", "&", "<", ">", "\"", "'", "é", "€", "😀", "\n"]
        var generator = SplitMix(seed: 42)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 40)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            var expected = ""
            for character in text {
                switch character {
                case "&": expected += "&amp;"
                case "<": expected += "&lt;"
                case ">": expected += "&gt;"
                case "\"": expected += "&quot;"
                case "'": expected += "&#39;"
                default: expected.append(character)
                }
            }
            #expect(try render("{{x}}", ["x": .string(text)]) == expected, "\(text)")
        }
    }

    @Test("renderText gives the same text as render's bytes, and the same error for an unknown name")
    func renderText() throws {
        let library = try TemplateLibrary(templates: ["main": "<p>{{x}} · {{{y}}}</p>"])
        let context: TemplateValue = ["x": "Zoë & <b>", "y": "<i>ok</i>"]
        #expect(
            try library.renderText("main", context: context)
                == String(decoding: try library.render("main", context: context), as: UTF8.self))
        #expect(try library.renderText("main", context: context) == "<p>Zoë &amp; &lt;b&gt; · <i>ok</i></p>")
        #expect(throws: TemplateError.self) { try library.renderText("missing", context: context) }
    }

    @Test("a layout through inheritance, as pages use it")
    func layout() throws {
        let layout = """
            <html><head><title>{{$title}}FlowServer{{/title}}</title></head>
            <body>
              {{$content}}
              {{/content}}
            </body></html>

            """
        let page = """
            {{<layout}}
            {{$title}}{{movie.title}} · Movies{{/title}}
            {{$content}}
            <h1>{{movie.title}}</h1>
            <ul>
              {{#movie.cast}}
              <li>{{name}}</li>
              {{/movie.cast}}
            </ul>
            {{/content}}
            {{/layout}}
            """
        let context: TemplateValue = [
            "movie": ["title": "Alien", "cast": [["name": "Sigourney Weaver"], ["name": "Tom Skerritt"]]]
        ]
        #expect(
            try render(page, context, partials: ["layout": layout]) == """
                <html><head><title>Alien · Movies</title></head>
                <body>
                  <h1>Alien</h1>
                  <ul>
                    <li>Sigourney Weaver</li>
                    <li>Tom Skerritt</li>
                  </ul>
                </body></html>

                """)
    }

    @Test("numbers, booleans and null interpolate as expected")
    func scalars() throws {
        #expect(
            try render("{{a}} {{b}} {{c}} {{d}} [{{e}}]", ["a": 42, "b": 1.5, "c": true, "d": 3.0, "e": nil])
                == "42 1.5 true 3 []")
    }

    @Test("data-driven recursion deeper than the limit stops instead of crashing")
    func deepRecursion() throws {
        var value: TemplateValue = ["name": "leaf"]
        for depth in 0..<500 { value = ["name": .string("n\(depth)"), "child": value] }
        let output = try render("{{>node}}", value, partials: ["node": "{{#child}}{{>node}}{{/child}}."])
        #expect(output.count == 100)
    }

    @Test(
        "a partial that expands itself for every item of a list it keeps finding fails after a bounded amount of work, naming the partial"
    )
    func exponentialRecursion() throws {
        // Every level finds `items` again (in the outer context) and expands twice: without a
        // bound on the work in all, 2^100 expansions (found by fuzzing: a hang).
        let library = try TemplateLibrary(templates: ["main": "{{>t}}", "t": "{{#items}}<{{>t}}>{{/items}}"])
        #expect {
            _ = try library.render("main", context: ["items": .list([.int(1), .int(2)])])
        } throws: { error in
            let message = (error as? TemplateError)?.description ?? ""
            return message.hasPrefix("t: rendering \"main\" stopped: it would do more than 20000000 steps of work")
                && message.contains("(in template \"t\")")
        }
    }

    @Test("a render that writes nothing but searches a context stack hundreds deep for every name also ends")
    func deepSearches() throws {
        // Found by timing the fuzzer's worst case: each expansion searches every context below it
        // for `flag` and `nope`, a hundred levels down, and writes nothing, so no output limit
        // ends it (11 minutes in the fuzzing build before the bound counted searches).
        let sections = String(repeating: "{{#items}}{{#flag}}{{nope}}{{/flag}}{{/items}}", count: 80)
        let library = try TemplateLibrary(templates: ["t": "{{#items}}{{>t}}{{/items}}" + sections])
        let context: TemplateValue = ["items": .list([["name": "a"], ["name": "b"]]), "flag": true]
        let error = #expect(throws: TemplateError.self) { try library.render("t", context: context) }
        #expect(error?.message.contains("it would do more than 20000000 steps of work") == true)
    }

    @Test("a list of 200,000 items, each name found one context out, is far within the bound on work")
    func largeListWithinTheWork() throws {
        let items: TemplateValue = ["items": .list((0..<200_000).map { ["n": .int($0)] }), "sep": ","]
        let output = try render("{{#items}}{{n}}{{sep}}{{/items}}", items)
        #expect(output.hasPrefix("0,1,2,") && output.hasSuffix("199999,"))
    }
}

@Suite("Output limit")
struct OutputLimitTests {
    private func library(_ template: String, limit: Int, partials: [String: String] = [:]) throws -> TemplateLibrary {
        var templates = partials
        templates["main"] = template
        return try TemplateLibrary(templates: templates, options: .init(maximumOutputBytes: limit))
    }

    @Test("a render of exactly the limit succeeds; one byte more fails with a message naming the option")
    func boundary() throws {
        let items: TemplateValue = ["items": .list((0..<1000).map { _ in .string("abcd") })]
        let exact = try library("{{#items}}{{.}}{{/items}}", limit: 4000)
        #expect(try exact.render("main", context: items).count == 4000)
        let over = try library("{{#items}}{{.}}{{/items}}!", limit: 4000)
        #expect {
            _ = try over.render("main", context: items)
        } throws: { error in
            (error as? TemplateError)?.description
                == "main: rendering \"main\" stopped: its output would pass 4000 bytes (TemplateLibrary.Options.maximumOutputBytes); does a partial include itself for every item of a list, or a section repeat a large list inside itself?"
        }
    }

    @Test("an escaped value counts at its escaped length, not at the worst case, against the limit")
    func escapedValueAtTheLimit() throws {
        // 10 bytes escape to 10 + 3 + 3 = 16; the worst case (six bytes a byte) would be 60.
        let value: TemplateValue = ["x": "<abcdefgh>"]
        #expect(try library("{{x}}", limit: 16).renderText("main", context: value) == "&lt;abcdefgh&gt;")
        #expect(throws: TemplateError.self) { try library("{{x}}", limit: 15).renderText("main", context: value) }
        #expect(try library("{{x}}", limit: 16).renderText("main", context: ["x": "\"'&"]) == "&quot;&#39;&amp;")
    }

    @Test("a section that repeats a large list inside itself ends at the limit, naming the partial it ran in")
    func nestedLists() throws {
        // A billion items' worth of output without the limit.
        let items: TemplateValue = ["items": .list((0..<1000).map { .int($0) })]
        let nested = try library(
            "<h1>{{>rows}}", limit: 1 << 20,
            partials: ["rows": "{{#items}}{{#items}}{{#items}}{{.}},{{/items}}{{/items}}{{/items}}"])
        #expect {
            _ = try nested.render("main", context: items)
        } throws: { error in
            let error = error as? TemplateError
            return error?.file == "rows" && error?.message.contains("would pass 1048576 bytes") == true
                && error?.message.contains("(in template \"rows\")") == true
        }
    }

    @Test("output larger than the thread's kept memory and the first estimate renders whole under the default limit")
    func largeOutputUnderTheDefault() throws {
        #expect(TemplateLibrary.Options().maximumOutputBytes == 16 << 20)
        let items: TemplateValue = ["items": .list((0..<200_000).map { .int($0) })]
        let output = try library("{{#items}}{{.}},{{/items}}", limit: TemplateLibrary.Options.defaultMaximumOutputBytes)
            .render("main", context: items)
        let expected = (0..<200_000).map { "\($0)," }.joined()
        #expect(output.count == expected.utf8.count && output.count > 1 << 20)
    }
}

@Suite("Output memory")
struct OutputMemoryTests {
    @Test("renders of any size, one after another and nested in time, each get their whole output")
    func sizes() throws {
        let items: TemplateValue = .list((0..<20_000).map { .int($0) })
        let big = try render("{{#items}}{{.}},{{/items}}", ["items": items])
        #expect(big.count == (0..<20_000).map { "\($0)," }.joined().count)
        #expect(big.hasPrefix("0,1,2,") && big.hasSuffix("19999,"))
        // After a render that grew past the kept memory's size, small ones still come out whole.
        for index in 0..<3 { #expect(try render("<{{x}}>", ["x": .int(index)]) == "<\(index)>") }
        let medium = try render("{{#items}}{{.}}{{/items}}", ["items": .list((0..<500).map { .int($0) })])
        #expect(medium == (0..<500).map { "\($0)" }.joined())
    }
}

@Suite("View models through TemplateValueEncoder")
struct EncoderTests {
    struct Cast: Encodable {
        var name: String
        var character: String?
    }
    struct MoviePage: Encodable {
        var title: String
        var year: Int
        var rating: Double
        var watched: Bool
        var tagline: String?
        var cast: [Cast]
        var tags: [String]
        var ids: [Int: String]
    }

    /// Encodes itself through a nested unkeyed container and an encoder for a nested value, and
    /// keeps a weak reference to that nested encoder.
    final class NestedProbe: Encodable {
        enum Key: String, CodingKey { case items, detail }
        weak var nested: AnyObject?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            var items = container.nestedUnkeyedContainer(forKey: .items)
            try items.encode("a")
            let detail = container.superEncoder(forKey: .detail)
            nested = detail as AnyObject
            var single = detail.singleValueContainer()
            try single.encode("b")
        }
    }

    /// A model that builds its own value, which differs from its encoded form so that the
    /// test sees which one the encoder used.
    struct Converting: Encodable, TemplateValueConvertible {
        var title: String
        var templateValue: TemplateValue { ["title": .string(title.uppercased())] }
    }

    @Test("a model that converts itself is not encoded; nested in an encoded model it is")
    func convertibleModels() throws {
        #expect(try TemplateValueEncoder().encode(Converting(title: "alien")) == ["title": "ALIEN"])
        struct Outer: Encodable { var inner: Converting }
        #expect(
            try TemplateValueEncoder().encode(Outer(inner: Converting(title: "alien"))) == ["inner": ["title": "alien"]]
        )
        #expect(try render("{{title}}", TemplateValueEncoder().encode(Converting(title: "alien"))) == "ALIEN")
    }

    @Test("an encoding with nested containers frees its nested encoders (no parent–child cycle is left)")
    func nestedContainersAreFreed() throws {
        let probes = [NestedProbe(), NestedProbe()]
        #expect(
            try TemplateValueEncoder().encode(probes) == [
                ["items": ["a"], "detail": "b"], ["items": ["a"], "detail": "b"],
            ])
        #expect(probes.allSatisfy { $0.nested == nil })
    }

    /// Weak references to every encoder a ``RecursiveProbe`` chain was given.
    final class SeenEncoders: @unchecked Sendable {
        struct Weak { weak var object: AnyObject? }
        var encoders: [Weak] = []
        /// Every encoder's identity, taken while all of them were in use.
        var identities: Set<ObjectIdentifier> = []
    }

    /// Starts a new encoding of a smaller probe inside its own, so that `depth + 1` root encoders
    /// are in use at once.
    struct RecursiveProbe: Encodable {
        var depth: Int
        var seen: SeenEncoders

        func encode(to encoder: any Encoder) throws {
            seen.encoders.append(.init(object: encoder as AnyObject))
            seen.identities.insert(ObjectIdentifier(encoder as AnyObject))
            if depth > 0 { _ = try TemplateValueEncoder().encode(RecursiveProbe(depth: depth - 1, seen: seen)) }
            var single = encoder.singleValueContainer()
            try single.encode(depth)
        }
    }

    @Test("a thread keeps one idle root encoder: the others an encoding needed at once are freed")
    func rootEncoderPoolIsBounded() throws {
        let seen = SeenEncoders()
        #expect(try TemplateValueEncoder().encode(RecursiveProbe(depth: 39, seen: seen)) == 39)
        #expect(seen.encoders.count == 40)
        #expect(seen.identities.count == 40)
        #expect(seen.encoders.filter { $0.object != nil }.count <= 1)
    }

    /// A tree whose nodes differ in shape, to check that a reused encoder carries nothing over.
    indirect enum Node: Encodable {
        case leaf(String)
        case branch(name: String, children: [Node])
    }

    @Test("items of different shapes, nested to any depth, encode independently")
    func itemsOfDifferentShapes() throws {
        let tree: [Node] = [
            .branch(name: "a", children: [.leaf("a1"), .branch(name: "a2", children: [.leaf("a2x")]), .leaf("a3")]),
            .leaf("b"),
            .branch(name: "c", children: []),
        ]
        let value = try TemplateValueEncoder().encode(tree)
        #expect(
            value == [
                [
                    "branch": [
                        "name": "a",
                        "children": [
                            ["leaf": ["_0": "a1"]],
                            ["branch": ["name": "a2", "children": [["leaf": ["_0": "a2x"]]]]],
                            ["leaf": ["_0": "a3"]],
                        ],
                    ]
                ],
                ["leaf": ["_0": "b"]],
                ["branch": ["name": "c", "children": []]],
            ])
    }

    @Test("encodes nested structs, arrays, optionals and scalars")
    func encodes() throws {
        let page = MoviePage(
            title: "Alien", year: 1979, rating: 8.5, watched: true, tagline: nil,
            cast: [Cast(name: "Sigourney Weaver", character: "Ripley"), Cast(name: "Ian Holm", character: nil)],
            tags: ["sci-fi", "horror"], ids: [1: "one"])
        let value = try TemplateValueEncoder().encode(page)
        #expect(value["title"] == "Alien")
        #expect(value["year"] == 1979)
        #expect(value["rating"] == 8.5)
        #expect(value["watched"] == true)
        #expect(value["tagline"] == .null)
        #expect(value["tags"] == ["sci-fi", "horror"])
        #expect(
            value["cast"] == [
                ["name": "Sigourney Weaver", "character": "Ripley"], ["name": "Ian Holm", "character": nil],
            ])
    }

    @Test("a nil field renders empty instead of reaching an outer value of the same name")
    func nilDoesNotLeak() throws {
        let page = MoviePage(
            title: "Alien", year: 1979, rating: 8.5, watched: false, tagline: "In space no one can hear you scream.",
            cast: [Cast(name: "Ian Holm", character: nil)], tags: [], ids: [:])
        let library = try TemplateLibrary(templates: [
            "page":
                "{{#cast}}{{name}}{{#character}} as {{character}}{{/character}};{{/cast}} {{^watched}}unwatched{{/watched}}"
        ])
        struct Outer: Encodable {
            var character = "OUTER"
            var page: MoviePage
        }
        let html = try library.render("page", model: page)
        #expect(String(decoding: html, as: UTF8.self) == "Ian Holm; unwatched")
        let value = try TemplateValueEncoder().encode(Outer(page: page))
        let nested = try TemplateLibrary(templates: ["p": "{{#page}}{{#cast}}[{{character}}]{{/cast}}{{/page}}"])
        #expect(String(decoding: try nested.render("p", context: value), as: UTF8.self) == "[]")
    }
}

@Suite("Template directories")
struct DirectoryTests {
    private func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("movies"), withIntermediateDirectories: true)
        try "<main>{{$content}}{{/content}}</main>".write(
            to: directory.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
        try "{{<layout}}{{$content}}<h1>{{title}}</h1>{{/content}}{{/layout}}"
            .write(to: directory.appendingPathComponent("movies/detail.mustache"), atomically: true, encoding: .utf8)
        try "not a template".write(
            to: directory.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("names templates by relative path and renders them")
    func loads() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try TemplateLibrary(directory: directory.path)
        #expect(library.names == ["layout", "movies/detail"])
        #expect(
            String(decoding: try library.render("movies/detail", context: ["title": "Alien"]), as: UTF8.self)
                == "<main><h1>Alien</h1></main>")
    }

    @Test("re-reads changed files only when asked to")
    func reload() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixed = try TemplateLibrary(directory: directory.path)
        let live = try TemplateLibrary(directory: directory.path, options: .init(reloadOnChange: true))
        try "<main class=\"new\">{{$content}}{{/content}}</main>!".write(
            to: directory.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
        #expect(
            String(decoding: try fixed.render("movies/detail", context: ["title": "A"]), as: UTF8.self)
                == "<main><h1>A</h1></main>")
        #expect(
            String(decoding: try live.render("movies/detail", context: ["title": "A"]), as: UTF8.self)
                == "<main class=\"new\"><h1>A</h1></main>!")
        try "{{#broken}}".write(
            to: directory.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: TemplateError.self) { try live.render("movies/detail", context: [:]) }
    }

    @Test("defaults fill in the templates a directory lacks; a file of the same name replaces one, after a reload too")
    func defaults() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("layout.mustache"))
        let defaults = ["layout": "<div>{{$content}}{{/content}}</div>", "footer": "(c) {{year}}"]
        let library = try TemplateLibrary(
            directory: directory.path, defaults: defaults, options: .init(reloadOnChange: true))
        #expect(library.names == ["footer", "layout", "movies/detail"])
        #expect(
            String(decoding: try library.render("movies/detail", context: ["title": "A"]), as: UTF8.self)
                == "<div><h1>A</h1></div>")
        try "<main>{{$content}}{{/content}}</main>".write(
            to: directory.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
        #expect(
            String(decoding: try library.render("movies/detail", context: ["title": "A"]), as: UTF8.self)
                == "<main><h1>A</h1></main>")
        #expect(try library.renderText("footer", context: ["year": 2026]) == "(c) 2026")
        let broken = #expect(throws: TemplateError.self) {
            try TemplateLibrary(directory: directory.path, defaults: ["bad": "{{#open}}"])
        }
        #expect(broken?.file == "(default) bad")
    }
}

/// A small seeded generator (SplitMix64), so a failing case can be reproduced.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
