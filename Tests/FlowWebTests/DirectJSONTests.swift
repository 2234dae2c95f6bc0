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

@Suite("A history entry as the API shows it")
struct HistoryEntryJSONTests {
    @Test(
        "written straight into bytes: every key of the contract's Entry, absent values null, reason only when present; read back equal"
    )
    func entryForm() throws {
        var entry = HistoryEntry(
            seq: 3, at: "2026-11-28T04:00:00.123Z", source: .api,
            step: WireStep(
                name: "movieIsPicked", params: ["withId": .int(7), "note": .string("a\"b"), "x": .double(1.5)]),
            adaptedStep: nil, from: 12, url: nil, outcome: .navigated,
            actions: [
                NavigationAction(kind: .push, node: 14, page: "movieDetail", flow: nil),
                NavigationAction(kind: .startFlow, node: 15, page: nil, flow: "cast"),
            ],
            top: .init(node: 14, url: "/wishlist/movies/7"), version: 5)
        var bytes: [UInt8] = []
        entry.write(into: &bytes)
        let expected = #"""
            {"seq":3,"at":"2026-11-28T04:00:00.123Z","source":"api","step":{"name":"movieIsPicked",\#
            "params":{"note":"a\"b","withId":7,"x":1.5}},"adaptedStep":null,"from":12,"url":null,\#
            "outcome":"navigated","actions":[{"kind":"push","node":14,"page":"movieDetail"},\#
            {"kind":"startFlow","node":15,"flow":"cast"}],"top":{"node":14,"url":"/wishlist/movies/7"},"version":5}
            """#
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(try CompactJSONEncoder().encode(entry) == bytes, "Encodable writes the same")
        #expect(try CompactJSONDecoder().decode(HistoryEntry.self, from: bytes) == entry)

        entry = HistoryEntry(
            seq: 1, at: "2026-11-28T04:00:00.000Z", source: .restart, step: nil,
            adaptedStep: WireStep(name: "logout"), from: nil, url: "/", outcome: .rejected, actions: [],
            top: .init(node: 1, url: "/"), version: 2, reason: "the session's tree")
        bytes = []
        entry.write(into: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"seq":1,"at":"2026-11-28T04:00:00.000Z","source":"restart","step":null,"adaptedStep":{"name":"logout","params":{}},"from":null,"url":"/","outcome":"rejected","actions":[],"top":{"node":1,"url":"/"},"version":2,"reason":"the session's tree"}"#
        )
        #expect(try CompactJSONDecoder().decode(HistoryEntry.self, from: bytes) == entry)
    }
}
