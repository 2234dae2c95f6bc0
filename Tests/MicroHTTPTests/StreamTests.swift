import FlowTesting
import Foundation
import Synchronization
import Testing

@testable import MicroHTTP

/// A responder that answers `/stream` with a stream it keeps, and anything else with `ok`.
private final class Streams: HTTPResponder, Sendable {
    let open = Mutex<[ResponseStream]>([])
    let closed = Atomic<Int>(0)

    func respond(to request: Request) async -> Response {
        guard request.path == "/stream" else { return .text("ok") }
        let stream = ResponseStream(bufferLimit: 1 << 20)
        stream.onClose { [self] in closed.add(1, ordering: .relaxed) }
        open.withLock { $0.append(stream) }
        stream.send(Array(": opened\n\n".utf8))
        return Response(headers: ["Content-Type": "text/event-stream"], stream: stream)
    }

    func sendAll(_ text: String) -> Int {
        open.withLock { streams in streams.filter { $0.send(Array(text.utf8)) }.count }
    }

    var count: Int { open.withLock { $0.count } }
}

/// Test connections used by one thread at a time, handed between the test and `onThread`.
private final class Clients: @unchecked Sendable {
    let all: [TestConnection]
    init(_ all: [TestConnection]) { self.all = all }
}

@Suite("Streamed responses")
struct StreamTests {
    @Test("a stream sends what is sent to it, while other requests are answered; 200 streams wait on no thread")
    func streams() async throws {
        let streams = Streams()
        var configuration = HTTPServer.Configuration()
        configuration.connectionsPerClient = 0
        try await withServer(configuration, responder: streams) { server throws in
            let port = server.port
            let clients = try await onThread { () -> Clients in
                Clients(
                    try (0..<200).map { _ in
                        let client = try TestConnection(port: port, receiveTimeout: 5)
                        try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
                        return client
                    })
            }
            let heads = try await onThread {
                try clients.all.map { client in (try client.readHead(), try client.readStream(until: "opened")) }
            }
            #expect(heads.allSatisfy { $0.0.status == 200 && $0.0.header("Transfer-Encoding") == "chunked" })
            // Every stream is parked now: the server's threads answer others at once.
            #expect(try await fetch(port: port, "/other").status == 200)
            #expect(streams.sendAll("data: one\n\n") == 200)
            let first = try await onThread { try clients.all.map { try $0.readStream(until: "data: one") } }
            #expect(first.count == 200)
            #expect(streams.sendAll("data: two\n\n") == 200)
            let second = try await onThread { try clients.all.map { try $0.readStream(until: "data: two") } }
            #expect(second.allSatisfy { $0.contains("data: two") })
        }
        // The stop ended every stream (a clean stop: they were not left waiting).
        #expect(streams.closed.load(ordering: .relaxed) == 200)
    }

    @Test("a client that goes away closes its stream at the next send; finish ends a stream")
    func clientGone() async throws {
        let streams = Streams()
        try await withServer(responder: streams) { server throws in
            let port = server.port
            try await onThread {
                let client = try TestConnection(port: port)
                try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try client.readHead()
                _ = try client.readStream(until: "opened")
            }  // the connection closes here
            let deadline = Date().addingTimeInterval(15)  // a loaded machine may take seconds
            while streams.closed.load(ordering: .relaxed) == 0 && Date() < deadline {
                _ = streams.sendAll(": ping\n\n")
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(streams.closed.load(ordering: .relaxed) == 1)
            #expect(streams.sendAll("data: late\n\n") == 0)
            let finished = try await onThread { () -> Bool in
                let client = try TestConnection(port: port)
                try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try client.readHead()
                _ = try client.readStream(until: "opened")
                streams.open.withLock { $0.last?.finish() }
                return (try? client.readStream(until: "never")) == nil
            }
            #expect(finished)
        }
    }

    @Test("a client that reads nothing is cut off once the buffer limit waits for it")
    func slowReader() async throws {
        let stream = ResponseStream(bufferLimit: 100)
        #expect(stream.send(Array(repeating: 65, count: 60)))
        #expect(!stream.send(Array(repeating: 66, count: 60)), "over the limit: the stream ends")
        #expect(!stream.send([67]))
    }
}
