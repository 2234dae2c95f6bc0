import FlowTesting
import Foundation
import Testing

extension TestServer {
    /// A browser holding a new session of the demo, onboarded through the API: on the wishlist.
    func onboardedBrowser() async throws -> TestBrowser {
        let api = browser()
        let created = try await api.send("POST", "/api/v1/sessions")
        let document = try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any]
        let id = try #require(document?["session"] as? String)
        for step in [
            #"{"step":{"name":"userIsLoggedIn","params":{"name":"Ada"}}}"#,
            #"{"step":{"name":"apiKeyIsFilledIn","params":{"apiKey":"k"}}}"#,
        ] {
            let sent = try await api.send(
                "POST", "/api/v1/session/steps",
                headers: [("Authorization", "Bearer \(id)"), ("Content-Type", "application/json")],
                body: Array(step.utf8))
            #expect(sent.status == 200)
        }
        let onboarded = browser()
        onboarded.setCookie("flowserver_session", id)
        return onboarded
    }
}
