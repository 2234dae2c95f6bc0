import FlowTesting
import Foundation
import MicroHTTP
import Testing

@Suite("Event loop")
struct EventLoopTests {
    /// libmicrohttpd 0.9.75's own thread reads epoll 128 events at a time, and waits again with
    /// the full timeout after a read that returned exactly 128, before handling any of them: a
    /// burst of exactly 128 ready connections then stalled until the connection timeout.
    @Test(
        "requests that arrive together while the thread is busy are answered at once, however many",
        arguments: [127, 128, 129])
    func burstWhileBusy(connections: Int) async throws {
        var configuration = HTTPServer.Configuration(threads: 1)
        configuration.connectionTimeout = 30
        configuration.connectionsPerClient = 0  // every connection comes from 127.0.0.1
        try await withServer(configuration, responder: BusyOnRequest()) { server throws in
            let answeredIn = try await onThread { () -> Double in
                let busy = try TestConnection(port: server.port)
                // Reads give up after 5 s: a stalled burst would wait for the 30-second timeout.
                let burst = try (0..<connections).map { _ in try TestConnection(port: server.port, receiveTimeout: 5) }
                for connection in [busy] + burst { _ = try connection.request("GET", "/") }  // all accepted, idle
                try busy.send("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n")
                usleep(50_000)  // the thread is now inside /busy's answer
                let sent = Date()
                for connection in burst { try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n") }
                for connection in burst { #expect(try connection.readResponse().status == 200) }
                #expect(try busy.readResponse().text == "done\n")
                return Date().timeIntervalSince(sent)
            }
            #expect(answeredIn < 5)
        }
    }
}

/// Answers on the server thread; `/busy` holds that thread for 300 ms first.
private final class BusyOnRequest: HTTPResponder {
    func respond(to request: Request) async -> Response { .text("late") }

    func immediateResponse(to request: Request) -> Response? {
        guard request.path == "/busy" else { return .text("now") }
        usleep(300_000)
        return .text("done")
    }
}
