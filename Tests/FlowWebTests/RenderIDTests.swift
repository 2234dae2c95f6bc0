import Testing

@testable import FlowWeb

@Suite("Render ids and hex text")
struct RenderIDTests {
    private static func isHex(_ text: String) -> Bool {
        text.utf8.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
    }

    @Test("render ids are 16 lower-case hex digits and never repeat, from several threads at once")
    func renderIDsAreUnique() async {
        let batches = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<25_000).map { _ in RenderID.next() } } }
            return await group.reduce(into: []) { $0.append(contentsOf: $1) }
        }
        #expect(batches.count == 100_000)
        #expect(Set(batches).count == 100_000)
        #expect(batches.allSatisfy { $0.utf8.count == 16 && Self.isHex($0) })
    }

    @Test("consecutive render ids differ in about half their bits")
    func renderIDsAreSpread() {
        let ids = (0..<1000).map { _ in UInt64(RenderID.next(), radix: 16)! }
        let flipped = zip(ids, ids.dropFirst()).map { ($0 ^ $1).nonzeroBitCount }
        let average = Double(flipped.reduce(0, +)) / Double(flipped.count)
        #expect(average > 24 && average < 40)
    }

    @Test("hex text of a word, and of random bytes")
    func hexText() {
        #expect(Hex.string(of: 0x0123_4567_89ab_cdef) == "0123456789abcdef")
        #expect(Hex.string(of: 0) == "0000000000000000")
        let random = Hex.random(bytes: 24)
        #expect(random.utf8.count == 48 && Self.isHex(random))
        #expect(Hex.random(bytes: 24) != random)
    }
}
