import Testing

@testable import FlowWeb

@Suite("Exact text")
struct ExactTextTests {
    @Test(
        "pieces are written in order into a string of their size",
        arguments: [0, 7, -7, 10, 1_234_567_890, Int.max, Int.min])
    func pieces(number: Int) {
        let text = ExactText.make { text in
            text.append("a=" as StaticString)
            text.append(number)
            text.append("&b=" as StaticString)
            text.append("Zoë 😀")
            text.append("")
        }
        #expect(text == "a=\(number)&b=Zoë 😀")
        #expect(text.utf8.count == "a=\(number)&b=Zoë 😀".utf8.count)
    }

    @Test("nothing written is the empty string")
    func empty() {
        #expect(ExactText.make { _ in }.isEmpty)
    }
}
