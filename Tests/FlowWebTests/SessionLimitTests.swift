import FlowCore
import FlowStore
import FlowTesting
import Foundation
import MicroHTTP
import Testing

@testable import FlowWeb

/// One client cannot grow a session without limit (issue "Bounded sessions", points 1 and 5).
@Suite("Session limits")
struct SessionLimitTests {
    /// A limit set low, and the API step that grows the session towards it.
    struct Growth: CustomStringConvertible {
        var limit: SessionLimit
        var limits: SessionLimits
        /// The step's JSON for the `n`th call.
        var step: @Sendable (Int) -> String

        var description: String { limit.rawValue }

        static let pushItem: @Sendable (Int) -> String = {
            #"{"step":{"name":"itemIsPicked","params":{"id":\#($0)}}}"#
        }

        /// The test app starts with 6 nodes (root, tabs, two lists and their pages), its deepest
        /// stack holding 2 (the tabs), about 300 bytes of tree and 15 of app data.
        static let all: [Growth] = [
            Growth(limit: .nodes, limits: SessionLimits(nodes: 10), step: pushItem),
            Growth(limit: .stackDepth, limits: SessionLimits(stackDepth: 4), step: pushItem),
            Growth(limit: .stateBytes, limits: SessionLimits(stateBytes: 700), step: pushItem),
            Growth(
                limit: .appDataBytes, limits: SessionLimits(appDataBytes: 15),
                step: { _ in #"{"step":{"name":"greet","params":{"name":"Ann","times":1}}}"# }),
        ]
    }

    /// A new API session on the server at `port`.
    private func apiSession(port: Int) async throws -> (API, String) {
        let anonymous = API(browser: TestBrowser(port: port))
        let created = try anonymous.object(try await anonymous.call("POST", "/api/v1/sessions"))
        let id = try #require(created["session"] as? String)
        return (API(browser: TestBrowser(port: port), bearer: id), id)
    }

    /// Steps `growth` on `api`'s session until a step is refused (at most 40): the refusal, and
    /// the stored record just before it.
    private func growUntilRefused(_ api: API, _ id: String, _ growth: Growth, store: any SessionStore) async throws
        -> (refusal: TestResponse, before: SessionRecord)
    {
        for n in 1...40 {
            let before = try #require(try await store.load(id))
            let answer = try await api.call("POST", "/api/v1/session/steps", json: growth.step(n))
            if answer.status != 200 { return (answer, before) }
        }
        throw LimitNotReached()
    }

    /// 40 steps and no limit refused one.
    struct LimitNotReached: Error {}

    @Test(
        "a step that would cross a limit is refused: session unchanged, entry rejected with the limit, 409 problem",
        arguments: StoreKind.allCases)
    func refused(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for growth in Growth.all { try await refused(growth, on: store) }
            if kind == .postgres { try await refusedOnBothInstances(store) }
        }
    }

    /// `growth` refused on `store` (a new server with its limits).
    private func refused(_ growth: Growth, on store: any SessionStore) async throws {
        let server = try startInstance(on: store) { $0.sessionLimits = growth.limits }
        defer { Task { await server.stop() } }
        let (api, id) = try await apiSession(port: server.port)
        let (refusal, before) = try await growUntilRefused(api, id, growth, store: store)

        #expect(refusal.status == 409)
        #expect(refusal.header("Content-Type") == "application/problem+json")
        let problem = try api.object(refusal)
        #expect(problem["type"] as? String == SessionLimits.problemType)
        #expect(problem["limit"] as? String == growth.limit.rawValue)
        #expect(problem["maximum"] as? Int != nil)
        #expect((problem["detail"] as? String)?.contains("nothing was changed") == true)

        let after = try #require(try await store.load(id))
        #expect(after.tree == before.tree && after.appData == before.appData, "the session is unchanged")
        #expect(after.version == before.version + 1, "only the refused entry was committed")
        let entries = try api.object(try await api.call("GET", "/api/v1/session/history?limit=500"))["entries"]
        let last = try #require((entries as? [[String: Any]])?.last)
        #expect(last["outcome"] as? String == "rejected")
        #expect((last["actions"] as? [Any])?.isEmpty == true)
        #expect((last["reason"] as? String)?.hasPrefix("limit \(growth.limit.rawValue): ") == true)

        // Going back shrinks the session: never refused.
        #expect(try await api.call("POST", "/api/v1/session/visits", json: #"{"url":"/a"}"#).status == 200)
        let metrics = String(decoding: try await TestBrowser(port: server.port).get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("flowserver_session_limit_refusals_total{limit=\"\(growth.limit.rawValue)\"} 1"))
    }

    @Test("a browser at the limit gets a page that says so and links back; the tree stays where it was")
    func refusedPage() async throws {
        try await withSite(configure: { $0.sessionLimits = SessionLimits(stackDepth: 3) }) { site in
            let browser = try await storedBrowser(site)  // /a ▸ /items/7
            let second = try await browser.follow("Next", on: "/items/7")
            #expect(second.status == 303)
            let top = try #require(second.header("Location"))
            let refused = try await browser.follow("Next", on: top)
            #expect(refused.status == 409)
            #expect(refused.text.contains("Session limit reached"))
            #expect(refused.text.contains("more than its limit of 3"))
            #expect(refused.text.contains(#"href="\#(top)""#), "a link back to where the visitor was")
            let id = try #require(browser.cookie("flowserver_session"))
            let api = API(browser: TestBrowser(port: site.port), bearer: id)
            let state = try api.object(try await api.call("GET", "/api/v1/session"))
            #expect((state["top"] as? [String: Any])?["url"] as? String == top)
            #expect(try await browser.get(top).status == 200, "the page the visitor was on still works")
        }
    }

    /// Two instances on one PostgreSQL database refuse the same step the same way.
    private func refusedOnBothInstances(_ store: any SessionStore) async throws {
        let limits = SessionLimits(nodes: 8)
        let one = try startInstance(on: store) { $0.sessionLimits = limits }
        let two = try startInstance(on: store) { $0.sessionLimits = limits }
        defer {
            Task {
                await one.stop()
                await two.stop()
            }
        }
        let (api, id) = try await apiSession(port: one.port)
        let growth = Growth(limit: .nodes, limits: limits, step: Growth.pushItem)
        let (refusal, _) = try await growUntilRefused(api, id, growth, store: store)
        #expect(refusal.status == 409)
        let atLimit = try #require(try await store.load(id))

        let onTwo = API(browser: TestBrowser(port: two.port), bearer: id)
        let again = try await onTwo.call("POST", "/api/v1/session/steps", json: Growth.pushItem(99))
        #expect(again.status == 409)
        #expect(try onTwo.object(again)["limit"] as? String == "nodes")
        let after = try #require(try await store.load(id))
        #expect(after.tree == atLimit.tree && after.version == atLimit.version + 1)
    }
}
