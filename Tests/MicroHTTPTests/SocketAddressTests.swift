@testable import MicroHTTP
import Testing

@Suite("Peer addresses")
struct SocketAddressTests {
    @Test("IPv4 peers are written as a.b.c.d:port", arguments: [
        (UInt32(0), UInt16(0), "0.0.0.0:0"),
        (UInt32(0x7F00_0001), UInt16(53012), "127.0.0.1:53012"),
        (UInt32(0x0A00_C807), UInt16(8080), "10.0.200.7:8080"),
        (UInt32.max, UInt16.max, "255.255.255.255:65535"),
    ])
    func ipv4(address: UInt32, port: UInt16, text: String) {
        #expect(SocketAddress.describe(ipv4: address, port: port) == text)
    }
}
