import FlowCore
import Testing

@testable import FlowWeb

@Suite("API bodies read straight from their JSON")
struct JSONBodyTests {
    @Test(
        "a step body of the usual shape reads as Codable reads it; any other shape is left to Codable",
        arguments: [
            (#"{"step":{"name":"go"}}"#, true),
            (#"{"step":{"name":"pick","params":{"id":3,"kind":"a","on":true}},"from":7}"#, true),
            (#"{"from":7,"step":{"name":"pick","params":{}}}"#, true),
            (#"{"step":{"name":"pick","params":{"ratio":0.5}}}"#, false),
            (#"{"step":{"name":"pick","params":null}}"#, false),
            (#"{"step":{"name":"pick"},"from":null}"#, false),
            (#"{"step":{"name":"pick"},"extra":1}"#, false),
            (#"{"step":{"name":"pick","params":{"id":1,"id":2}}}"#, false),
            (#"{"step":{"name":3}}"#, false),
        ])
    func stepBody(text: String, direct: Bool) throws {
        let json = try JSON(parsing: Array(text.utf8))
        let read = StepBody(direct: json)
        #expect((read != nil) == direct)
        guard let read else { return }
        let decoded = try CompactJSONDecoder().decode(StepBody.self, from: json)
        #expect(read.step == decoded.step && read.from == decoded.from)
    }

    @Test("a visit body reads its url; anything else is left to Codable")
    func visitBody() throws {
        #expect(VisitBody(direct: try JSON(parsing: Array(#"{"url":"/a"}"#.utf8)))?.url == "/a")
        #expect(VisitBody(direct: try JSON(parsing: Array(#"{"url":1}"#.utf8))) == nil)
        #expect(VisitBody(direct: try JSON(parsing: Array(#"{"url":"/a","x":1}"#.utf8))) == nil)
    }
}
