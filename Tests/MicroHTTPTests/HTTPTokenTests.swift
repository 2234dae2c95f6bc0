import Testing

@testable import MicroHTTP

@Suite("Header tokens")
struct HTTPTokenTests {
    @Test("exactly RFC 9110's tchar bytes are token bytes")
    func tokenBytes() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPToken.isTokenByte(byte) == tchar.contains(byte), "byte \(byte)")
        }
    }
}
