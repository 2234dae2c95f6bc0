import FlowCore
import FlowStore
import Foundation
import Testing

@testable import FlowWeb

@Suite("History entries as stored")
struct StoredEntryTests {
    /// A step adapted into another, from page 5, with an action of each shape.
    private let adapted = Navigation<WebStep>(
        trigger: .step(.greet(name: "Zoë \"Z\"", times: 2), from: NodeID(rawValue: 5)), outcome: .adapted,
        adaptedStep: .noop,
        actions: [
            NavigationAction(kind: .push, node: NodeID(rawValue: 7), page: "item", flow: nil),
            NavigationAction(kind: .startFlow, node: NodeID(rawValue: 9), page: nil, flow: "options"),
            NavigationAction(kind: .pop, node: NodeID(rawValue: 8), page: nil, flow: nil),
        ],
        steps: [
            NavigatedStep(
                flow: NodeID(rawValue: 3), flowName: "list", step: .greet(name: "Zoë \"Z\"", times: 2),
                adaptation: .step(.noop)),
            NavigatedStep(flow: NodeID(rawValue: 4), flowName: "list", step: .helpIsRequired, adaptation: .refuse),
            NavigatedStep(flow: NodeID(rawValue: 4), flowName: "list", step: .noop, adaptation: .step(.noop)),
        ],
        top: NodeID(rawValue: 7), topURL: "/items/7")

    @Test("the stored form is written byte for byte as earlier versions wrote it, and reads back the same")
    func storedForm() throws {
        let entry = StoredEntry(seq: 4, at: 1_800_000_000_000, source: .form, url: nil, version: 6, navigation: adapted)
        let written = try entry.encoded()
        #expect(
            String(decoding: written.entry, as: UTF8.self)
                == #"[1800000000000,"form",6,null,[["step",{"greet":{"name":"Zoë \"Z\"","times":2}},5],"adapted","#
                + #"[["push",7,"item"],["startFlow",9,null,"options"],["pop",8]],"#
                + #"[[3,"list",{"greet":{"name":"Zoë \"Z\"","times":2}},{"step":{"_0":{"noop":{}}}}],"#
                + #"[4,"list",{"helpIsRequired":{}},{"refuse":{}}],[4,"list",{"noop":{}}]],7,"/items/7",{"noop":{}}]]"#)
        #expect(written.seq == 4)
        let read = try StoredEntry<WebStep>(written)
        #expect(read.navigation == adapted && read.at == entry.at && read.version == 6 && read.url == nil)

        let start = StoredEntry<WebStep>(
            seq: 1, at: nil, source: .start, url: "/a", version: 1,
            navigation: Navigation(
                trigger: .start, outcome: .navigated, adaptedStep: nil, actions: [], steps: [],
                top: NodeID(rawValue: 5), topURL: "/a"))
        #expect(
            String(decoding: try start.encoded().entry, as: UTF8.self)
                == #"[null,"start",1,"/a",["start","navigated",[],[],5,"/a"]]"#)
    }

    @Test("a snapshot is written as JSON, not as a string; a reason follows it, with null for a missing snapshot")
    func snapshotsAndReasons() throws {
        var entry = StoredEntry(
            seq: 2, at: 7, source: .visit, url: "/b", version: 3,
            navigation: Navigation<WebStep>(
                trigger: .visit(NodeID(rawValue: 6)), outcome: .rejected, adaptedStep: nil, actions: [], steps: [],
                top: NodeID(rawValue: 5), topURL: "/a"),
            snapshot: StateSnapshot(tree: Array(#"{"nextNode":3}"#.utf8), appData: []))
        let head = #"[7,"visit",3,"/b",[["visit",6],"rejected",[],[],5,"/a"]"#
        #expect(String(decoding: try entry.encoded().entry, as: UTF8.self) == head + #",{"nextNode":3},null]"#)
        entry.snapshot = nil
        entry.reason = "limit nodes: \"501\""
        #expect(
            String(decoding: try entry.encoded().entry, as: UTF8.self)
                == head + #",null,null,"limit nodes: \"501\""]"#)
        let read = try StoredEntry<WebStep>(try entry.encoded())
        #expect(read.reason == entry.reason && read.snapshot == nil)
    }
}

@Suite("History times")
struct HistoryTimeTests {
    @Test(
        "an entry's time is written as Foundation's ISO 8601 style writes it",
        arguments: [
            0, 999, 1_000, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_000, 1_709_164_800_000,
            1_800_000_000_000, 4_107_542_399_000, 13_574_563_200_000, 253_402_300_799_000, -1, -86_400_001,
        ] as [Int64])
    func timestamps(milliseconds: Int64) {
        #expect(
            StoredEntry<WebStep>.timestamp(milliseconds)
                == Date(timeIntervalSince1970: (Double(milliseconds) / 1000).rounded(.down)).formatted(.iso8601))
    }
}
