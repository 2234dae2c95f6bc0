import FlowTesting
import Foundation
import MicroHTTP
import Testing

/// Sends `bytes` one at a time, `interval` apart, until the server closes the connection or
/// `limit` passes; answers the seconds until the close, or `nil` when it stayed open.
private func trickle(_ bytes: String, on connection: TestConnection, every interval: Double, for limit: Double)
    -> Double?
{
    let started = Date()
    var next = Array(bytes.utf8)[...]
    while Date().timeIntervalSince(started) < limit {
        if let byte = next.popFirst() { try? connection.send([byte]) } else { next = Array(bytes.utf8)[...] }
        if connection.waitForClose(seconds: interval) { return Date().timeIntervalSince(started) }
    }
    return nil
}

@Suite("Slow clients")
struct SlowClientTests {
    @Test("a request that trickles in is closed at its read deadline, though it never goes quiet")
    func readDeadline() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.readTimeout = 1
        configuration.connectionTimeout = 30
        try await withServer(configuration, responder: ClosureResponder { _ in .text("ok") }) { server throws in
            let closedAfter = try await onThread { () -> Double? in
                let slow = try TestConnection(port: server.port)
                try slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n")
                return trickle("X-Trickle: a\r\n", on: slow, every: 0.2, for: 6)
            }
            // The deadline is checked once a second: closed between 1 and about 2 s.
            #expect(closedAfter.map { $0 < 3 } == true, "closed after \(closedAfter.map { "\($0) s" } ?? "never")")
            #expect(try await fetch(port: server.port, "/fine").status == 200)
        }
    }

    @Test("a kept-alive connection must start its next request within the idle timeout, trickling or not")
    func idleDeadline() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.readTimeout = 30
        configuration.connectionTimeout = 2
        try await withServer(configuration, responder: ClosureResponder { _ in .text("ok") }) { server throws in
            let (answered, closedAfter) = try await onThread { () -> (Int, Double?) in
                let connection = try TestConnection(port: server.port)
                let first = try connection.request("GET", "/first").status
                usleep(500_000)  // idle for a while: still kept alive
                let second = try connection.request("GET", "/second").status
                return (first + second, trickle("GET /never-ending", on: connection, every: 0.3, for: 8))
            }
            #expect(answered == 400)
            #expect(closedAfter.map { $0 < 4 } == true, "closed after \(closedAfter.map { "\($0) s" } ?? "never")")
        }
    }

    @Test("one client address may hold only so many connections; a closed one makes room")
    func connectionsPerClient() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.connectionsPerClient = 2
        try await withServer(configuration, responder: ClosureResponder { _ in .text("ok") }) { server throws in
            try await onThread {
                var first: TestConnection? = try TestConnection(port: server.port)
                let second = try TestConnection(port: server.port)
                #expect(try first?.request("GET", "/").status == 200)
                #expect(try second.request("GET", "/").status == 200)
                let third = try TestConnection(port: server.port, receiveTimeout: 2)
                #expect(third.waitForClose(seconds: 2), "a third connection from 127.0.0.1 is closed at once")
                first = nil  // closes it
                // The server notices the close on its next loop: under load (the whole suite runs
                // in parallel) that may take longer than a moment, so a new connection is tried
                // until one is served, for up to 3 s.
                var answered: Int?
                for _ in 0..<15 where answered == nil {
                    usleep(200_000)
                    answered = try? TestConnection(port: server.port, receiveTimeout: 2).request("GET", "/").status
                }
                #expect(answered == 200, "a closed connection makes room for another")
            }
        }
    }
}
