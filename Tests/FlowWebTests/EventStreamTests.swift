import FlowTesting
import Foundation
import MicroHTTP
import Testing

@testable import FlowWeb

/// Opens `GET /_events` with `cookie` (and `headers`) on a connection of its own; answers it
/// after reading the head.
private func openEvents(
    port: Int, cookie: String?, headers: String = "", target: String = "/_events"
) throws -> (UncheckedBox<TestConnection>, TestResponse) {
    let connection = try TestConnection(port: port, receiveTimeout: 5)
    try connection.send(
        "GET \(target) HTTP/1.1\r\nHost: x\r\n" + (cookie.map { "Cookie: flowserver_session=\($0)\r\n" } ?? "")
            + headers + "\r\n")
    return (UncheckedBox(connection), try connection.readHead())
}

@Suite("Live tabs: the session's event stream (Docs/CONTRACT.md §9)")
struct EventStreamTests {
    @Test("a step in one tab reaches the other tab's stream, with the new version and top")
    func stepReachesStream() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let port = site.port
            let (stream, head) = try await onThread { try openEvents(port: port, cookie: id) }
            #expect(
                head.status == 200 && head.header("Content-Type") == "text/event-stream"
                    && head.header("Set-Cookie") == nil)
            _ = try await onThread { try stream.value.readStream(until: "retry: 2000") }
            _ = try await browser.follow("class=\"next\"", on: "/items/7")
            let event = try await onThread { try stream.value.readStream(until: "\n\n") }
            let version = try #require(try site.store.load(id)).version
            #expect(event.contains("event: version\nid: \(version)\ndata: {\"version\":\(version),\"top\":{\"node\":"))
            #expect(event.contains("\"url\":\"/items/8\"}}"))
        }
    }

    @Test("API clients get the same stream with their bearer token")
    func apiStream() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let port = site.port
            let (stream, head) = try await onThread {
                try openEvents(
                    port: port, cookie: nil, headers: "Authorization: Bearer \(id)\r\nLast-Event-ID: 1\r\n",
                    target: "/api/v1/session/events")
            }
            #expect(head.status == 200 && head.header("Content-Type") == "text/event-stream")
            let event = try await onThread { try stream.value.readStream(until: "event: version") }
            #expect(event.contains("\"url\":\"/items/7\""))
            let (_, refused) = try await onThread {
                try openEvents(
                    port: port, cookie: nil, headers: "Authorization: Bearer nobody\r\n",
                    target: "/api/v1/session/events")
            }
            #expect(refused.status == 401)
        }
    }

    @Test(
        "a page's older version or Last-Event-ID gets the current version at once; no session: 204, no cookie; a limit per session"
    )
    func catchUpAndLimits() async throws {
        try await withSite(configure: { $0.eventStreamsPerSession = 2 }) { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let port = site.port
            let caughtUp = try await onThread { () -> (String, String) in
                let (byPage, _) = try openEvents(port: port, cookie: id, target: "/_events?version=1")
                let (byHeader, _) = try openEvents(port: port, cookie: id, headers: "Last-Event-ID: 1\r\n")
                let (third, head) = try openEvents(port: port, cookie: id)
                _ = third
                #expect(head.status == 429)
                return (
                    try byPage.value.readStream(until: "event: version"),
                    try byHeader.value.readStream(until: "event: version")
                )
            }
            #expect(caughtUp.0.contains("\"url\":\"/items/7\"") && caughtUp.1.contains("\"url\":\"/items/7\""))
            let (none, head) = try await onThread { try openEvents(port: port, cookie: nil) }
            _ = none
            #expect(head.status == 204 && head.header("Set-Cookie") == nil)
            #expect(site.store.count == 1)
        }
    }
}

/// A value handed between the test and `onThread`, used by one of them at a time.
private final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
