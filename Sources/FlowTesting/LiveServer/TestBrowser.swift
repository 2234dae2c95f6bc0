import FlowWeb
import Foundation

/// A minimal browser for tests against a live server: it keeps the cookies it is given and
/// sends them back, follows nothing by itself (tests check each `303`), and can say it is on
/// another site (`Sec-Fetch-Site`).
///
/// ```swift
/// let browser = TestBrowser(port: server.port)
/// let home = try await browser.get("/")            // 303 to the top page, sets the session cookie
/// let page = try await browser.get(home.header("Location")!)
/// ```
public final class TestBrowser: @unchecked Sendable {
    // @unchecked: the cookie jar is guarded by `lock`; everything else is immutable.
    /// The server's port on 127.0.0.1.
    public let port: Int
    private let lock = NSLock()
    private var jar: [String: String] = [:]

    /// A browser with no cookies.
    public init(port: Int) { self.port = port }

    /// The cookie `name`, if the server set it.
    public func cookie(_ name: String) -> String? { lock.withLock { jar[name] } }

    /// Sets a cookie as if the server had (forged or stale ids in tests).
    public func setCookie(_ name: String, _ value: String?) { lock.withLock { jar[name] = value } }

    /// `GET path`.
    public func get(_ path: String, headers: [(String, String)] = []) async throws -> TestResponse {
        try await send("GET", path, headers: headers)
    }

    /// `POST path` with an urlencoded form (fields in order).
    public func post(_ path: String, form: [(String, String)], headers: [(String, String)] = []) async throws
        -> TestResponse
    {
        let body = FormEncoding.form(form)
        return try await send(
            "POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: Array(body.utf8))
    }

    /// Any request; cookies go with it and come back from `Set-Cookie`.
    public func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [])
        async throws -> TestResponse
    {
        var all = headers
        let cookies = lock.withLock { jar.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if !cookies.isEmpty { all.append(("Cookie", cookies)) }
        let port = self.port
        let sendHeaders = all
        let response = try await onThread {
            try TestConnection(port: port).request(method, path, headers: sendHeaders, body: body)
        }
        lock.withLock {
            for header in response.headers("Set-Cookie") {
                let pair = header.split(separator: ";").first ?? ""
                guard let equals = pair.firstIndex(of: "=") else { continue }
                jar[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
        }
        return response
    }
}
