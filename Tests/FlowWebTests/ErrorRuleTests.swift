import FlowTesting
import Testing

@testable import FlowWeb

/// One rule turns every error into an answer: problem+json for the API, the event stream and
/// clients that accept JSON and not HTML; an HTML page for everyone else.
@Suite("The error rule")
struct ErrorRuleTests {
    @Test("a missing page is HTML for a browser and curl, a problem for a client that wants JSON")
    func missingPage() async throws {
        try await withSite { site in
            let browser = TestBrowser(port: site.port)
            for accept in ["text/html,application/xhtml+xml,*/*;q=0.8", "*/*", ""] {
                let page = try await browser.get("/nowhere", headers: accept.isEmpty ? [] : [("Accept", accept)])
                #expect(page.status == 404)
                #expect(page.header("Content-Type")?.hasPrefix("text/html") == true, "Accept: \(accept)")
                #expect(page.text.contains("There is no page at /nowhere."))
            }
            let problem = try await browser.get("/nowhere", headers: [("Accept", "application/json")])
            #expect(problem.status == 404)
            #expect(problem.header("Content-Type") == "application/problem+json")
            #expect(problem.text.contains("\"detail\":\"There is no page at /nowhere.\""))
            #expect(problem.headers("Set-Cookie").isEmpty)
        }
    }

    @Test("API errors are problems whatever the client accepts; a step's error is a page")
    func apiAndSteps() async throws {
        try await withSite { site in
            let browser = TestBrowser(port: site.port)
            let unauthorized = try await browser.get("/api/v1/session", headers: [("Accept", "text/html")])
            #expect(unauthorized.status == 401)
            #expect(unauthorized.header("Content-Type") == "application/problem+json")
            let unknown = try await browser.get("/api/v1/nothing", headers: [("Accept", "text/html")])
            #expect(unknown.status == 404)
            #expect(unknown.header("Content-Type") == "application/problem+json")
            let step = try await browser.get("/_step/noSuchStep?_from=1")
            #expect(step.status == 400)
            #expect(step.header("Content-Type")?.hasPrefix("text/html") == true)
        }
    }

    @Test("cookie, bearer or none: the API takes either, a change by cookie needs its CSRF header")
    func credentials() async throws {
        try await withSite { site in
            let browser = try await storedBrowser(site)
            let api = API(browser: browser)
            #expect(try await api.call("GET", "/api/v1/session").status == 200)
            let unsafe = try await api.call("POST", "/api/v1/session/visits", json: #"{"url":"/a"}"#)
            #expect(unsafe.status == 403)
            #expect(unsafe.header("Content-Type") == "application/problem+json")
            let stranger = TestBrowser(port: site.port)
            let id = try #require(browser.cookie("flowserver_session"))
            let bearer = API(browser: stranger, bearer: id)
            #expect(try await bearer.call("POST", "/api/v1/session/visits", json: #"{"url":"/a"}"#).status == 200)
            let wrongScheme = try await stranger.get("/api/v1/session", headers: [("Authorization", "Basic x")])
            #expect(wrongScheme.status == 401)
            #expect(wrongScheme.text.contains("Bearer"))
        }
    }
}
