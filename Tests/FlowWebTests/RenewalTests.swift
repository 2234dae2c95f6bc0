import FlowTesting
import MicroHTTP
import Testing

@testable import FlowWeb

@Suite("Session renewal")
struct RenewalTests {
    @Test("requests that find a session due for renewal together renew it once, not once each")
    func renewedOnce() async throws {
        try await withSite(sessionTTL: 60) { site in
            let browser = try await storedBrowser(site)
            let id = try #require(browser.cookie("flowserver_session"))
            let before = try #require(try site.store.load(id))
            site.clock.advance(seconds: 7)  // past the renewal interval, a tenth of the lifetime
            let locks = site.responder.sessions.locks
            // The session's lock is held while 8 page requests load the session, find it due and
            // queue for the lock to renew it.
            let (gate, openGate) = AsyncStream<Void>.makeStream()
            let known = try #require(try await site.responder.sessions.load(id))
            let holder = Task { await locks.holding(known) { for await _ in gate {} } }
            while locks.waiterCount(id) == nil { await Task.yield() }
            let request = try Request(method: .get, target: "/items/7", headers: ["Cookie": "flowserver_session=\(id)"])
            let pages = (0..<8).map { _ in Task { await site.responder.respond(to: request) } }
            while (locks.waiterCount(id) ?? 0) < 8 { try await Task.sleep(for: .milliseconds(1)) }
            openGate.finish()
            await holder.value
            for page in pages { #expect(await page.value.status == .ok) }
            let after = try #require(try site.store.load(id))
            #expect(after.version == before.version + 1)
            #expect(after.lastUsedAt == site.clock.now && after.expiresAt == site.clock.now + 60_000)
        }
    }
}
