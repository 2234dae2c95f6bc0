import FlowStore
import FlowStorePostgres
import FlowTesting
import Foundation
import MicroHTTP
import ProcessTestSupport
import Testing

@testable import FlowWeb

/// A rolling deploy: an instance of version 1 and one of version 2 on one PostgreSQL database
/// (issue "Sessions survive a deploy", points 4 and 6).
@Suite("A rolling deploy on PostgreSQL", .serialized)
struct RollingDeployTests {
    @Test("the older instance leaves the newer one's sessions alone (503); the newer migrates the older one's")
    func rolling() async throws {
        let cluster = try await PostgresCluster.started()
        // Generous timeouts: a just-started cluster on two busy cores; this test measures no outage.
        let stores = [
            try PostgresSessionStore(url: cluster.url, timeout: .seconds(15)),
            try PostgresSessionStore(url: cluster.url, timeout: .seconds(15)),
        ]
        try await withRunningServices(stores.flatMap(\.services)) {
            for store in stores { try await store.prepare() }
            let one = try startInstance(on: stores[0])
            let two = try startInstance(
                try TestSite.webApp(version: "2", migrations: SessionMigrationTests.migrations), on: stores[1])
            defer {
                Task {
                    await one.stop()
                    await two.stop()
                }
            }

            // A session of version 1, read and then changed by version 2.
            let browser = try await startedBrowser(port: one.port)
            _ = try await browser.follow("Item 7", on: "/a")
            let id = try #require(browser.cookie("flowserver_session"))
            let onTwo = TestBrowser(port: two.port)
            onTwo.setCookie("flowserver_session", id)
            #expect(try await onTwo.get("/items/7").status == 200)
            _ = try await onTwo.follow("Next", on: "/items/7")
            let migrated = try #require(try await stores[1].load(id))
            #expect(String(decoding: migrated.extra, as: UTF8.self).contains(#""app":"2""#))

            // Version 1 now meets a session of version 2: 503, and the session is left as it is.
            let refused = try await browser.get("/items/8")
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") != nil)
            #expect(try await browser.get("/_step/itemIsPicked?id=9").status == 503)
            #expect(try await stores[0].load(id) == migrated)
            #expect(try await stores[0].quarantined(id).isEmpty)
            #expect(try await onTwo.get("/items/8").status == 200, "version 2 serves it")

            // Behind deploy/'s nginx rules, with both instances in turn: every page of the session
            // is served, the requests that met version 1 first being passed on to version 2.
            let nginx = try NginxProxy(upstreams: [one.port, two.port])
            defer { nginx.stop() }
            let throughNginx = TestBrowser(port: nginx.port)
            throughNginx.setCookie("flowserver_session", id)
            for path in ["/items/3", "/items/4", "/a", "/items/5", "/items/6", "/b"] {
                #expect(try await throughNginx.get(path).status == 200, "\(path) through nginx")
            }
            // The first request met version 1 and was passed on; nginx then counts version 1 as
            // failed and sends it nothing for `fail_timeout` (10 s).
            #expect(nginx.accessLog.first == "GET /items/3 200 503, 200", "nginx's log: \(nginx.accessLog)")
            #expect(nginx.accessLog.count == 6)
            let api = API(browser: TestBrowser(port: two.port), bearer: id)
            let top = try api.object(try await api.call("GET", "/api/v1/session"))["top"]
            #expect((top as? [String: Any])?["url"] as? String == "/b", "the tree follows the last page")
            #expect(try await stores[0].quarantined(id).isEmpty)
        }
    }

    /// A browser on the server at `port` with a new session (it has fetched `/`).
    private func startedBrowser(port: Int) async throws -> TestBrowser {
        let browser = TestBrowser(port: port)
        _ = try await browser.get("/")
        return browser
    }
}
