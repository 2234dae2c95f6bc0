import Foundation
import MustacheTemplates
import Testing

/// One test of the official Mustache spec (shared/mustache-spec, never copied into the project).
struct SpecCase: Sendable, CustomTestStringConvertible {
    var module: String
    var name: String
    var template: String
    var data: TemplateValue
    var partials: [String: String]
    var expected: String

    var testDescription: String { "\(module): \(name)" }
}

/// Reads the spec files from `../shared/mustache-spec/` relative to the project root.
enum MustacheSpec {
    static let modules = [
        "comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~inheritance",
    ]

    static var directory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/mustache-spec").standardizedFileURL
    }

    static var isPresent: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("sections.json").path)
    }

    static let cases: [SpecCase] = {
        guard isPresent else { return [] }
        return modules.flatMap { module -> [SpecCase] in
            guard
                let data = FileManager.default.contents(
                    atPath: directory.appendingPathComponent("\(module).json").path),
                let file = try? JSONDecoder().decode(SpecFile.self, from: data)
            else { return [] }
            return file.tests.map {
                SpecCase(
                    module: module, name: $0.name, template: $0.template, data: $0.data.value,
                    partials: $0.partials ?? [:], expected: $0.expected)
            }
        }
    }()

    private struct SpecFile: Decodable {
        struct Test: Decodable {
            var name: String
            var template: String
            var data: JSON
            var partials: [String: String]?
            var expected: String
        }
        var tests: [Test]
    }
}

/// JSON as a template value.
struct JSON: Decodable {
    var value: TemplateValue

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            value = .null
        } else if let flag = try? container.decode(Bool.self) {
            value = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            value = .int(number)
        } else if let number = try? container.decode(Double.self) {
            value = .double(number)
        } else if let text = try? container.decode(String.self) {
            value = .string(text)
        } else if let list = try? container.decode([JSON].self) {
            value = .list(list.map(\.value))
        } else {
            value = .object(TemplateObject(try container.decode([String: JSON].self).mapValues(\.value)))
        }
    }
}

@Suite("Mustache spec conformance")
struct MustacheSpecTests {
    @Test("the spec folder is there (required in CI)")
    func specFolder() {
        if MustacheSpec.isPresent {
            #expect(MustacheSpec.cases.count > 100, "expected every module's tests, found \(MustacheSpec.cases.count)")
        } else if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("the Mustache spec is missing at \(MustacheSpec.directory.path); CI must run beside shared/")
        } else {
            print("note: \(MustacheSpec.directory.path) is missing; the Mustache spec tests are skipped")
        }
    }

    @Test("every spec test renders as expected", arguments: MustacheSpec.cases)
    func spec(_ test: SpecCase) throws {
        var templates = test.partials
        templates["__spec_main__"] = test.template
        let library = try TemplateLibrary(templates: templates, options: .init(missingTemplates: .renderNothing))
        let output = String(decoding: try library.render("__spec_main__", context: test.data), as: UTF8.self)
        #expect(output == test.expected, "template: \(test.template.debugDescription)")
    }
}
