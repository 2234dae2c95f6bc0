import FlowCore
import FlowTesting
import Synchronization
import Testing

@testable import FlowWeb

/// The OpenAPI document an app serves describes the steps it takes (issue "A newcomer's first
/// hour", point 6): each step's params and their types, learned by decoding as the server does.
@Suite("The app's OpenAPI document")
struct APIDocumentTests {
    private enum ProbedStep: FlowStep {
        case plain
        case picked(withId: Int)
        case named(name: String, note: String?)
        case rated(score: Double, liked: Bool)
    }

    @Test("a step's params get the types the server decodes them as; a param it decodes without is optional")
    func probing() throws {
        let picked = try #require(StepSignature(probing: "picked", params: ["withId"], as: ProbedStep.self))
        #expect(picked.params == [.init(name: "withId", type: .integer)])
        let named = try #require(StepSignature(probing: "named", params: ["name", "note"], as: ProbedStep.self))
        #expect(
            named.params == [.init(name: "name", type: .string), .init(name: "note", type: .string, isOptional: true)])
        let rated = try #require(StepSignature(probing: "rated", params: ["score", "liked"], as: ProbedStep.self))
        #expect(rated.params == [.init(name: "liked", type: .boolean), .init(name: "score", type: .number)])
        #expect(StepSignature(probing: "plain", params: [], as: ProbedStep.self)?.params == [])
        // A param no page showed is learned from the step; an unknown step has no signature.
        #expect(StepSignature(probing: "picked", params: [], as: ProbedStep.self)?.params.map(\.name) == ["withId"])
        #expect(StepSignature(probing: "unknown", params: [], as: ProbedStep.self) == nil)
    }

    @Test("the document's sendStep takes the app's steps, oneOf by name; answers keep the general Step")
    func document() throws {
        let base = String(decoding: try #require(FlowWebDefaults.publicFiles["openapi.yaml"]), as: UTF8.self)
        let steps = [
            StepSignature(name: "picked", params: [.init(name: "withId", type: .integer)]),
            StepSignature(name: "plain"),
            StepSignature(name: "named", params: [.init(name: "note", type: .string, isOptional: true)]),
        ]
        let yaml = APIDocument.yaml(base: base, steps: steps)
        #expect(yaml.contains(##"                step: { $ref: "#/components/schemas/AppStep" }"##))
        #expect(yaml.components(separatedBy: ##"$ref: "#/components/schemas/Step" }"##).count == 3, "entries keep Step")
        #expect(yaml.contains("      oneOf:\n        - $ref: \"#/components/schemas/AppStep_named\""))
        #expect(
            yaml.contains(
                """
                    AppStep_picked:
                      type: object
                      required: [name, params]
                      properties:
                        name: { type: string, enum: ["picked"] }
                        params:
                          type: object
                          required: ["withId"]
                          properties:
                            "withId": { $ref: "#/components/schemas/IntegerParam" }
                """))
        #expect(yaml.contains("    AppStep_plain:\n      type: object\n      required: [name]\n"))
        #expect(yaml.contains("    AppStep_named:\n      type: object\n      required: [name]\n"))
        #expect(yaml.contains("\n    IntegerParam:\n") && yaml.contains("\n    ParamValue:\n"))
        #expect(APIDocument.yaml(base: base, steps: []) == base)
        #expect(APIDocument.yaml(base: "openapi: 3.1.0\n", steps: steps) == "openapi: 3.1.0\n")
    }

    @Test("/public/openapi.yaml is the document with the app's steps, made once; without them, FlowServer's")
    func served() async throws {
        let calls = Counter()
        try await withSite(configure: { configuration in
            configuration.apiSteps = {
                calls.add()
                return [StepSignature(name: "itemIsPicked", params: [.init(name: "withId", type: .integer)])]
            }
        }) { site in
            let browser = TestBrowser(port: site.port)
            let document = try await browser.get("/public/openapi.yaml")
            #expect(document.status == 200 && document.text.contains(#"enum: ["itemIsPicked"]"#))
            let again = try await browser.get(
                "/public/openapi.yaml", headers: [("If-None-Match", document.header("ETag") ?? "")])
            #expect(again.status == 304 && calls.value == 1)
        }
        try await withSite { site in
            let document = try await TestBrowser(port: site.port).get("/public/openapi.yaml")
            #expect(document.status == 200 && !document.text.contains("AppStep"))
        }
    }
}

/// A count several tasks add to.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
