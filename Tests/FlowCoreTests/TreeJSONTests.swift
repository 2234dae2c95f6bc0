import FlowCore
import Foundation
import Testing

@Suite("Tree JSON coding")
struct TreeJSONTests {
    @Test("trees round-trip through our codec (empty states and params left out) and read Foundation's JSON the same")
    func roundTrips() async throws {
        let store = try await startedStore(onboarded: false)
        try await store.send(
            .userIsLoggedIn(name: "Zoë \"Z\" <z@example.com>\n\u{1F600}"), from: store.top, tree: treeAfterLogin)
        let registry = store.coordinator.app.registry
        let ours = try store.tree.jsonBytes()
        let text = String(decoding: ours, as: UTF8.self)
        #expect(!text.contains(#""state":{}"#) && !text.contains(#""params":{}"#))
        #expect(String(decoding: try JSONEncoder().encode(store.tree), as: UTF8.self).contains(#""params":{}"#))
        #expect(try NavigationTree(json: ours, registry: registry) == store.tree)
        let foundation = [UInt8](try JSONEncoder().encode(store.tree))
        #expect(try NavigationTree(json: foundation, registry: registry) == store.tree)
        #expect(try TreeCoding.decode(Data(ours)) == store.tree)
    }

    @Test("a flow's state is written as the last step left it, in a tree read from JSON as in one built by steps")
    func flowStatesFollowSteps() async throws {
        let store = try await startedStore(onboarded: false)
        let registry = store.coordinator.app.registry
        store.exhaustivity = .off
        try await store.send(.userIsLoggedIn(name: "A"), from: store.top)
        try await store.send(.apiKeyIsFilledIn(apiKey: "k"), from: store.top)
        let onboarded = try store.tree.jsonBytes()
        #expect(String(decoding: onboarded, as: UTF8.self).contains(#""flow":"app","state":{"onboarded":true}"#))

        var read = try NavigationTree(json: onboarded, registry: registry)
        #expect(try read.jsonBytes() == onboarded)
        _ = try await store.coordinator.apply(.logoutIsRequired, from: read.page(at: "/wishlist")?.id, to: &read)
        let loggedOut = try read.jsonBytes()
        #expect(String(decoding: loggedOut, as: UTF8.self).contains(#""flow":"app","state":{"onboarded":false}"#))
        #expect(try NavigationTree(json: loggedOut, registry: registry) == read)
    }

    @Test("type-erased flows and pages are equal only when of one type and equal")
    func typeErasedEquality() {
        #expect(AnyFlow(AppFlow(onboarded: true)) == AnyFlow(AppFlow(onboarded: true)))
        #expect(AnyFlow(AppFlow(onboarded: true)) != AnyFlow(AppFlow(onboarded: false)))
        #expect(AnyFlow(OnboardingFlow()) != AnyFlow(SettingsFlow()))
        #expect(AnyPage(LoginPage()) == AnyPage(LoginPage()))
        #expect(AnyPage(LoginPage()) != AnyPage(APIKeyPage()))
    }

    struct Sample: Codable, Equatable {
        var text: String
        var numbers: [Int]
        var ratio: Double
        var flag: Bool?
        var nested: [String: [UInt8]]
        var big: Int64
    }

    @Test("values survive: escapes, surrogate pairs, numbers, optionals, nesting")
    func values() throws {
        let sample = Sample(
            text: "tab\t quote\" slash\\ ctrl\u{01} é 😀", numbers: [-1, 0, Int.max], ratio: 0.1,
            flag: nil, nested: ["a": [1, 2], "": []], big: Int64.min)
        let bytes = try CompactJSONEncoder().encode(sample)
        #expect(try CompactJSONDecoder().decode(Sample.self, from: bytes) == sample)
        #expect(
            String(decoding: try CompactJSONEncoder().encode(["plain", "q\"b\\s\n", "é"]), as: UTF8.self)
                == #"["plain","q\"b\\s\n","é"]"#)
        #expect(
            String(decoding: try CompactJSONEncoder().encode([-12, 0, 345, Int.min]), as: UTF8.self)
                == "[-12,0,345,\(Int.min)]")
        let escaped = Array(
            #"{"text":"\u00e9\ud83d\ude00\/","numbers":[1e2],"ratio":-2.5E-3,"nested":{},"big":3}"#.utf8)
        let decoded = try CompactJSONDecoder().decode(Sample.self, from: escaped)
        #expect(decoded.text == "é😀/" && decoded.numbers == [100] && decoded.ratio == -0.0025)
    }

    @Test(
        "malformed JSON is refused with a position, never a crash",
        arguments: [
            "", "{", "{\"a\":}", "[1,]", "\"\\ud800\"", "\"abc", "{\"a\":1} x", "nul", "1.2.3", "\"\u{01}\"",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ])
    func malformed(text: String) {
        #expect(throws: DecodingError.self) { try CompactJSONDecoder().decode([Int].self, from: Array(text.utf8)) }
    }
}

/// Encodes itself through a nested keyed container, as enums with associated values do, and
/// keeps a weak reference to the encoder it was given.
private final class NestedEncodingProbe: Encodable {
    private enum Key: String, CodingKey { case step, withId }
    weak var encoder: AnyObject?

    func encode(to encoder: any Encoder) throws {
        self.encoder = encoder as AnyObject
        var container = encoder.container(keyedBy: Key.self)
        var nested = container.nestedContainer(keyedBy: Key.self, forKey: .step)
        try nested.encode(42, forKey: .withId)
    }
}

@Suite("CompactJSONEncoder")
struct CompactJSONEncoderTests {
    @Test("an encoding with nested containers frees its encoders (no parent–child cycle is left)")
    func nestedContainersAreFreed() throws {
        let probe = NestedEncodingProbe()
        #expect(String(decoding: try CompactJSONEncoder().encode(probe), as: UTF8.self) == #"{"step":{"withId":42}}"#)
        #expect(probe.encoder == nil)
    }
}

@Suite("Navigation records")
struct NavigationRecordTests {
    @Test("a navigated step stores its adaptation only when adapt changed or refused the step")
    func compactAdaptations() throws {
        let kept = NavigatedStep(
            flow: NodeID(rawValue: 4), flowName: "wishlist", step: TestStep.movieIsPicked(withId: 3),
            adaptation: .step(.movieIsPicked(withId: 3)))
        let replaced = NavigatedStep(
            flow: NodeID(rawValue: 4), flowName: "wishlist", step: TestStep.aboutIsRequired,
            adaptation: .step(.unauthorized))
        let refused = NavigatedStep(
            flow: NodeID(rawValue: 4), flowName: "wishlist", step: TestStep.aboutIsRequired, adaptation: .refuse)
        #expect(!String(decoding: try CompactJSONEncoder().encode(kept), as: UTF8.self).contains("adaptation"))
        for step in [kept, replaced, refused] {
            #expect(
                try CompactJSONDecoder().decode(
                    NavigatedStep<TestStep>.self, from: try CompactJSONEncoder().encode(step)) == step)
        }
    }
}

@Suite("A commit's encoding copies what did not change")
struct EncodedTreeTests {
    /// The encoding of `tree` from `previous`: the bytes and size a fresh encoding gives.
    func encoding(_ tree: NavigationTree, reusing previous: EncodedTree?) throws -> EncodedTree {
        let encoded = try tree.encoded(reusing: previous)
        #expect(encoded.bytes == (try tree.jsonBytes()))
        #expect(encoded.size == tree.size)
        return encoded
    }

    /// An onboarded tree whose wishlist stack holds 41 pages, and that stack.
    static func longStack() async throws -> (Coordinator<TestStep>, NavigationTree, FlowNode) {
        let store = try await startedStore()
        var tree = store.tree
        for id in 1...40 { _ = try await store.coordinator.apply(.movieIsPicked(withId: id % 7 + 1), to: &tree) }
        let stack = try #require(tree.top.flatMap { tree.ancestry(of: $0.id)?.last?.flow })
        return (store.coordinator, tree, stack)
    }

    @Test("a push, a Back and a visit far down a stack of 41 pages copy the pages the stack still starts with")
    func longStack() async throws {
        var (coordinator, tree, stack) = try await Self.longStack()
        #expect(stack.children.count == 41)
        var encoded = try encoding(tree, reusing: nil)
        #expect(encoded.copiedPages == 0)

        _ = try await coordinator.apply(.movieIsPicked(withId: 9), to: &tree)
        encoded = try encoding(tree, reusing: encoded)
        #expect(encoded.copiedPages == 41)

        _ = try coordinator.visit(stack.children[40].id, in: &tree)
        encoded = try encoding(tree, reusing: encoded)
        #expect(encoded.copiedPages == 41)

        _ = try coordinator.visit(stack.children[20].id, in: &tree)
        encoded = try encoding(tree, reusing: encoded)
        #expect(encoded.copiedPages == 21)

        // Another tree (one read back from its JSON) has pages of its own: nothing is copied, and
        // what is written is still its JSON.
        let read = try NavigationTree(
            json: tree.jsonBytes(), appData: tree.appDataJSON(), registry: coordinator.app.registry)
        #expect(try encoding(read, reusing: encoded).copiedPages == 0)
    }

    @Test("the API's State of a long stack copies the same way, and never from an encoding of the other form")
    func longStackState() async throws {
        var (coordinator, tree, stack) = try await Self.longStack()
        /// The State of `tree` from `previous`: the bytes a fresh one gives.
        func state(reusing previous: EncodedTree?) -> EncodedTree {
            let encoded = tree.encodedState(reusing: previous)
            #expect(encoded.bytes == tree.encodedState(reusing: nil).bytes)
            #expect(encoded.form == .state)
            return encoded
        }
        var encoded = state(reusing: nil)
        #expect(encoded.copiedPages == 0 && encoded.recordsStacks)
        #expect(try JSON(parsing: encoded.bytes)["node"] == .int(tree.root.id.rawValue))

        _ = try await coordinator.apply(.movieIsPicked(withId: 9), to: &tree)
        encoded = state(reusing: encoded)
        #expect(encoded.copiedPages == 41)
        _ = try coordinator.visit(stack.children[20].id, in: &tree)
        encoded = state(reusing: encoded)
        #expect(encoded.copiedPages == 21)

        let stored = try tree.encoded(reusing: nil)
        #expect(state(reusing: stored).copiedPages == 0)
        #expect(try tree.encoded(reusing: encoded).copiedPages == 0)
        #expect(try tree.encoded(reusing: encoded).bytes == (try tree.jsonBytes()))
    }
}
