import FlowCore
import Testing

@testable import FlowWeb

@Suite("The session's bookkeeping as stored")
struct SessionExtraTests {
    @Test("written straight into bytes: the documented keys, empty parts left out, and read back whole")
    func storedForm() throws {
        #expect(String(decoding: SessionExtra().jsonBytes(), as: UTF8.self) == #"{"submissions":[]}"#)

        var extra = SessionExtra()
        extra.remember(.init(render: "r1", step: "movieIsPicked?id=1", location: "/movies/1"))
        extra.remember(.init(render: "r\"2", step: "s", location: "/a b"))
        extra.snapshots = [3, 5]
        extra.restartedAt = 4
        extra.level = 2
        extra.levels = [[1, 1], [6, 2]]
        extra.appVersion = "1.0 \u{e9}"
        extra.failedForm = .init(version: 7, page: 3, values: ["b": "\"", "a": "1"], errors: ["a": "too short"])
        let expected = #"""
            {"submissions":[{"render":"r1","step":"movieIsPicked?id=1","location":"/movies/1"},\#
            {"render":"r\"2","step":"s","location":"/a b"}],"snapshots":[3,5],"restarted":4,"level":2,\#
            "levels":[[1,1],[6,2]],"app":"1.0 é","form":{"version":7,"page":3,"values":{"a":"1","b":"\""},\#
            "errors":{"a":"too short"}}}
            """#
        #expect(String(decoding: extra.jsonBytes(), as: UTF8.self) == expected)
        #expect(try CompactJSONEncoder().encode(extra) == extra.jsonBytes(), "Encodable writes the same")

        let read = try CompactJSONDecoder().decode(SessionExtra.self, from: extra.jsonBytes())
        #expect(read.submissions.map(\.render) == ["r1", "r\"2"])
        #expect(read.submissions.map(\.location) == ["/movies/1", "/a b"])
        #expect(read.snapshots == [3, 5] && read.restartedAt == 4 && read.level == 2)
        #expect(read.levels == [[1, 1], [6, 2]] && read.appVersion == "1.0 é")
        #expect(read.failedForm?.values == ["a": "1", "b": "\""] && read.failedForm?.errors == ["a": "too short"])
        #expect(read.failedForm?.version == 7 && read.failedForm?.page == 3)
    }
}
