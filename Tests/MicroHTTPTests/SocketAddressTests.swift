import Testing

@testable import MicroHTTP

@Suite("Peer addresses")
struct SocketAddressTests {
    @Test(
        "IPv4 peers are written as a.b.c.d:port",
        arguments: [
            (UInt32(0), UInt16(0), "0.0.0.0:0"),
            (UInt32(0x7F00_0001), UInt16(53012), "127.0.0.1:53012"),
            (UInt32(0x0A00_C807), UInt16(8080), "10.0.200.7:8080"),
            (UInt32.max, UInt16.max, "255.255.255.255:65535"),
        ])
    func ipv4(address: UInt32, port: UInt16, text: String) {
        #expect(SocketAddress.describe(ipv4: address, port: port) == text)
    }
}

@Suite("The connection limit per client address")
struct ClientConnectionLimitTests {
    @Test("addresses are read from text in one form for IPv4 and IPv6; anything else is refused")
    func addresses() {
        #expect(
            ClientAddress(ip: "10.0.0.1") != nil
                && ClientAddress(ip: "10.0.0.1") == ClientAddress(ip: "::ffff:10.0.0.1"))
        #expect(ClientAddress(ip: "::1") != nil && ClientAddress(ip: "::1") != ClientAddress(ip: "127.0.0.1"))
        for bad in ["", "proxy.local", "10.0.0.1:80", "[::1]", "10.0.0.256"] {
            #expect(ClientAddress(ip: bad) == nil, "\(bad)")
        }
    }

    @Test("an address is held to the limit; an unlimited one (a trusted proxy) is not")
    func unlimited() throws {
        let proxy = try #require(ClientAddress(ip: "10.0.0.1"))
        let client = try #require(ClientAddress(ip: "10.0.0.2"))
        let limit = ClientConnectionLimit(limit: 2, unlimited: [proxy])
        for _ in 0..<5 {
            if limit.admits(proxy) { limit.opened(proxy) }
            if limit.admits(client) { limit.opened(client) }
        }
        #expect(limit.admits(proxy) && !limit.admits(client))
        limit.closed(client)
        #expect(limit.admits(client))
    }

    @Test("a server refuses a configuration whose unlimited clients are not IP addresses")
    func invalid() {
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, unlimitedClients: ["proxy.local"]), responder: Router())
        #expect(throws: HTTPServerError.self) { try server.start() }
    }
}
