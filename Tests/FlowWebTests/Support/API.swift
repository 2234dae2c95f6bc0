import FlowTesting
import Foundation

/// The JSON API as tests use it, with the browser's cookie or a bearer token.
struct API {
    let browser: TestBrowser
    var bearer: String?

    struct Entry: Decodable {
        var seq: Int
        var source: String
        var outcome: String
        var actions: [String]
        var version: Int

        enum CodingKeys: String, CodingKey { case seq, source, outcome, actions, version }
        struct Action: Decodable {
            var kind: String
            var page: String?
            var flow: String?
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            seq = try container.decode(Int.self, forKey: .seq)
            source = try container.decode(String.self, forKey: .source)
            outcome = try container.decode(String.self, forKey: .outcome)
            actions = try container.decode([Action].self, forKey: .actions).map {
                "\($0.kind) \($0.page ?? $0.flow ?? "?")"
            }
            version = try container.decode(Int.self, forKey: .version)
        }
    }

    func call(_ method: String, _ path: String, json: String? = nil, headers: [(String, String)] = []) async throws
        -> TestResponse
    {
        var all = headers
        if let bearer { all.append(("Authorization", "Bearer \(bearer)")) }
        if json != nil { all.append(("Content-Type", "application/json")) }
        return try await browser.send(method, path, headers: all, body: Array((json ?? "").utf8))
    }

    func object(_ response: TestResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    /// Every history entry.
    func history() async throws -> [Entry] {
        let response = try await call("GET", "/api/v1/session/history?limit=500")
        struct Page: Decodable { var entries: [Entry] }
        return try JSONDecoder().decode(Page.self, from: Data(response.body)).entries
    }
}
