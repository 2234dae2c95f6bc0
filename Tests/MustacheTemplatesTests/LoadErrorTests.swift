import Foundation
import MustacheTemplates
import Testing

private func loadError(_ templates: [String: String]) -> TemplateError? {
    do {
        _ = try TemplateLibrary(templates: templates)
        return nil
    } catch {
        return error
    }
}

@Suite("Load-time errors name file, line and column")
struct LoadErrorTests {
    @Test("an unclosed section")
    func unclosedSection() throws {
        let error = try #require(loadError(["page": "<ul>\n  {{#movies}}\n  <li>{{title}}</li>\n</ul>"]))
        #expect(error.file == "page" && error.line == 2 && error.column == 3)
        #expect(error.message.contains("unclosed section \"movies\""))
    }

    @Test("a close tag that matches nothing or the wrong section")
    func mismatchedClose() throws {
        let wrong = try #require(loadError(["page": "{{#a}}\n{{#b}}x{{/a}}\n{{/b}}"]))
        #expect(wrong.line == 2 && wrong.column == 8)
        #expect(wrong.message.contains("does not match the open \"b\""))
        let stray = try #require(loadError(["page": "text {{/a}}"]))
        #expect(stray.line == 1 && stray.column == 6)
    }

    @Test("an unclosed tag, an empty name, an invalid name")
    func badTags() throws {
        #expect(try #require(loadError(["p": "a\nb {{name"])).description == "p:2:3: unclosed tag: no }} after this {{")
        #expect(try #require(loadError(["p": "{{ }}"])).message == "empty tag name")
        #expect(try #require(loadError(["p": "{{a b}}"])).message.contains("invalid tag name"))
        #expect(try #require(loadError(["p": "{{a..b}}"])).message.contains("invalid name"))
    }

    @Test("invalid delimiters")
    func invalidDelimiters() throws {
        #expect(try #require(loadError(["p": "x\n{{=<% %>}}"])).line == 2)
        #expect(try #require(loadError(["p": "{{=<%=}}"])).message.contains("two delimiters"))
        #expect(try #require(loadError(["p": "{{=a= b=}}"])).message.contains("without ="))
    }

    @Test("an unknown partial or parent")
    func unknownPartial() throws {
        let partial = try #require(loadError(["page": "ok\n  {{>footer}}", "header": "h"]))
        #expect(partial.file == "page" && partial.line == 2 && partial.column == 3)
        #expect(partial.message.contains("unknown template \"footer\""))
        let parent = try #require(loadError(["page": "{{<layuot}}{{/layuot}}", "layout": "l"]))
        #expect(parent.message.contains("unknown template \"layuot\""))
    }

    @Test("cycles of partials or parents that would never end")
    func cycles() throws {
        let partials = try #require(loadError(["a": "A{{>b}}", "b": "B\n{{>c}}", "c": "{{>a}}"]))
        #expect(partials.message.contains("a → b → c → a"))
        let parents = try #require(loadError(["a": "{{<b}}{{/b}}", "b": "{{<a}}{{/a}}"]))
        #expect(parents.message.contains("include each other forever"))
        #expect(loadError(["self": "{{>self}}"]) != nil)
        // Recursion that data ends is fine.
        #expect(loadError(["node": "{{name}}{{#children}}{{>node}}{{/children}}"]) == nil)
    }

    @Test("a file that is not UTF-8 is refused with the position of the first bad byte")
    func invalidUTF8() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Array("ok\nab".utf8) + [0xC3, 0x28] + Array(" rest".utf8)).write(
            to: directory.appendingPathComponent("bad.mustache"))
        do {
            _ = try TemplateLibrary(directory: directory.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.file.hasSuffix("bad.mustache"))
            #expect(error.line == 2 && error.column == 3)
            #expect(error.message.contains("not valid UTF-8"))
        }
    }

    @Test("a missing directory says which flag to set")
    func missingDirectory() {
        #expect(throws: TemplateError.self) { try TemplateLibrary(directory: "/nonexistent-\(UUID().uuidString)") }
    }

    @Test("rendering an unknown template name is an error that lists the known ones")
    func unknownName() throws {
        let library = try TemplateLibrary(templates: ["a": "x"])
        #expect(throws: TemplateError(file: "b", message: "no template named \"b\" (known: a)")) {
            try library.render("b", context: .null)
        }
    }
}
