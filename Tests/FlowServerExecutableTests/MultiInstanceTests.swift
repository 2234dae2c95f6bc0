import FlowTesting
import Foundation
import ProcessTestSupport
import Testing

/// A session driven through the JSON API of one `flowserver`, authenticated with its bearer id.
private struct SessionClient: Sendable {
    let port: Int
    let session: String

    /// A step's answer: the status, and for a `200` the entry's seq and the new top URL.
    struct Answer: Sendable {
        var status: Int
        var seq: Int?
        var top: String?
        var retryAfter: String?
        /// The body of an answer other than `200` (a problem document).
        var detail: String?
    }

    /// Creates a session on the server at `port` and onboards it (login, then API key).
    static func onboarded(port: Int) async throws -> SessionClient {
        let response = try await TestBrowser(port: port).send(
            "POST", "/api/v1/sessions", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        try #require(response.status == 201, "creating a session answered \(response.status): \(response.text)")
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let client = SessionClient(port: port, session: try #require(object?["session"] as? String))
        #expect(try await client.step(#"{"name":"userIsLoggedIn","params":{"name":"Ada"}}"#).status == 200)
        #expect(try await client.step(#"{"name":"apiKeyIsFilledIn","params":{"apiKey":"k"}}"#).top == "/wishlist")
        return client
    }

    /// The same session through another server.
    func on(port: Int) -> SessionClient { SessionClient(port: port, session: session) }

    /// `POST /api/v1/session/steps` with `step` (JSON), from the top page.
    func step(_ step: String) async throws -> Answer {
        let response = try await send("POST", "/api/v1/session/steps", json: #"{"step":\#(step)}"#)
        guard response.status == 200 else {
            return Answer(status: response.status, retryAfter: response.header("Retry-After"), detail: response.text)
        }
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let entry = object?["entry"] as? [String: Any]
        let state = object?["state"] as? [String: Any]
        return Answer(
            status: 200, seq: entry?["seq"] as? Int, top: (state?["top"] as? [String: Any])?["url"] as? String)
    }

    /// Picks movie `id` from the top page; answers the entry's seq.
    func pickMovie(_ id: Int) async throws -> Answer {
        try await step(#"{"name":"movieIsPicked","params":{"withId":\#(id)}}"#)
    }

    /// `GET /api/v1/session`.
    func state() async throws -> [String: Any] {
        let response = try await send("GET", "/api/v1/session")
        try #require(response.status == 200, "the state answered \(response.status)")
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    /// Every history entry, oldest first, read page by page.
    func history() async throws -> [[String: Any]] {
        var entries: [[String: Any]] = []
        var after = 0
        while true {
            let response = try await send("GET", "/api/v1/session/history?after=\(after)&limit=50")
            try #require(response.status == 200, "the history answered \(response.status)")
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            entries += object?["entries"] as? [[String: Any]] ?? []
            guard let next = object?["next"] as? Int else { return entries }
            after = next
        }
    }

    private func send(_ method: String, _ path: String, json: String? = nil) async throws -> TestResponse {
        var headers = [("Authorization", "Bearer \(session)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await TestBrowser(port: port).send(method, path, headers: headers, body: Array((json ?? "").utf8))
    }
}

/// The movie id a `movieIsPicked` history entry carries.
private func movieID(_ entry: [String: Any]) -> Int? {
    guard let step = entry["step"] as? [String: Any], step["name"] as? String == "movieIsPicked" else { return nil }
    return (step["params"] as? [String: Any])?["withId"] as? Int
}

/// The URLs of the pages of the flow named `flow`, bottom first, in a State's tree.
private func pageURLs(ofFlow flow: String, in node: [String: Any]) -> [String]? {
    if node["flow"] as? String == flow {
        return (node["children"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
    }
    let nested = (node["children"] as? [[String: Any]] ?? []) + [node["presented"] as? [String: Any]].compactMap { $0 }
    for child in nested {
        if let found = pageURLs(ofFlow: flow, in: child) { return found }
    }
    return nil
}

/// Counter `flowserver_<name>_total` of the server at `port`.
private func counter(_ name: String, port: Int) async throws -> Int {
    let text = try await TestBrowser(port: port).get("/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix("flowserver_\(name)_total") }
    return line.flatMap { $0.split(separator: " ").last }.flatMap { Int(Double($0) ?? 0) } ?? 0
}

/// A stream's connection, handed between the test and `onThread` (used by one at a time).
private final class StreamBox: @unchecked Sendable {
    let connection: TestConnection
    init(_ connection: TestConnection) { self.connection = connection }
}

/// The `flowserver_sessions_live` gauge of the server at `port` (the store's count).
private func liveSessions(port: Int) async throws -> Int {
    let text = try await TestBrowser(port: port).get("/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix("flowserver_sessions_live") }
    return try #require(line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }.map { Int($0) })
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// Two `flowserver` processes on one PostgreSQL database (issue: several instances behind a load
/// balancer, no sticky sessions).
@Suite("two flowserver instances on one PostgreSQL database", .serialized)
struct MultiInstanceTests {
    /// A throwaway cluster and two servers on it.
    private func instances() async throws -> (PostgresCluster, FlowServerProcess, FlowServerProcess, Int, Int) {
        let cluster = try await PostgresCluster.started()
        // Every test client connects from 127.0.0.1, up to 100 at once per instance; one test
        // pushes 200 movies on one stack.
        let arguments = [
            "--port", "0", "--store", cluster.url, "--log-level", "error", "--max-connections-per-client", "0",
            "--max-stack-depth", "300",
        ]
        let a = try FlowServerProcess(arguments)
        let portA = try #require(a.listeningPort(), "instance A did not start: \(a.standardError)")
        let b = try FlowServerProcess(arguments)
        let portB = try #require(b.listeningPort(), "instance B did not start: \(b.standardError)")
        return (cluster, a, b, portA, portB)
    }

    @Test(
        "a session started on A continues on B; 200 steps sent to both at once are each in its history once, in the tree's order"
    )
    func concurrentSteps() async throws {
        let (cluster, a, b, portA, portB) = try await instances()
        defer { withExtendedLifetime((cluster, a, b)) {} }
        let onA = try await SessionClient.onboarded(port: portA)
        let onB = onA.on(port: portB)
        #expect((try await onB.state()["top"] as? [String: Any])?["url"] as? String == "/wishlist")
        #expect(try await onB.pickMovie(1).top == "/movies/1")
        #expect((try await onA.state()["top"] as? [String: Any])?["url"] as? String == "/movies/1")

        let answers = try await withThrowingTaskGroup(of: (movie: Int, answer: SessionClient.Answer).self) { group in
            for index in 0..<200 {
                let client = index.isMultiple(of: 2) ? onA : onB
                let movie = index % 12 + 1
                group.addTask { (movie, try await client.pickMovie(movie)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let failed = answers.filter { $0.answer.status != 200 }.map { "\($0.answer.status): \($0.answer.detail ?? "")" }
        #expect(failed.isEmpty, "answers other than 200: \(failed)")
        let seqs = answers.compactMap(\.answer.seq)
        #expect(Set(seqs).count == 200)

        let history = try await onB.history()
        #expect(history.compactMap { $0["seq"] as? Int } == Array(1...204))
        let versions = history.compactMap { $0["version"] as? Int }
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 })
        let bySeq = Dictionary(
            uniqueKeysWithValues: history.compactMap { entry in (entry["seq"] as? Int).map { ($0, entry) } })
        for (movie, answer) in answers {
            let entry = try #require(answer.seq.flatMap { bySeq[$0] })
            #expect(movieID(entry) == movie)
        }
        // The wishlist stack holds the picked movies in history order: one order, on both instances.
        let picked = history.compactMap(movieID).map { "/movies/\($0)" }
        let root = try #require(try await onA.state()["root"] as? [String: Any])
        #expect(pageURLs(ofFlow: "wishlist", in: root) == ["/wishlist"] + picked)
        // The steps did contend: some commits lost to the other instance and were applied again,
        // or steps that waited for the session's lock on one instance were stored together (how
        // many of each depends on timing; `CommitTogetherTests` checks both ways).
        let conflicts = try await [portA, portB].asyncMap { try await counter("commit_conflicts", port: $0) }
            .reduce(0, +)
        let together = try await [portA, portB].asyncMap {
            try await counter("changes_committed_together", port: $0)
        }.reduce(0, +)
        #expect(conflicts + together > 0)
        print(
            "two instances, 200 concurrent steps on one session: \(conflicts) commits applied again after a conflict, \(together) steps stored together with others"
        )
    }

    @Test(
        "pages on one instance show every step the other acknowledged before they were asked for, eight at once (asked together)"
    )
    func pagesFollowSteps() async throws {
        let (cluster, a, b, portA, portB) = try await instances()
        defer { withExtendedLifetime((cluster, a, b)) {} }
        let client = try await SessionClient.onboarded(port: portA)
        for movie in 1...12 {
            let (stepping, reading) = movie.isMultiple(of: 2) ? (portA, portB) : (portB, portA)
            #expect(try await client.on(port: stepping).pickMovie(movie).top == "/movies/\(movie)")
            // The page the step led to, and `/`, which redirects to the session's top page: were
            // the reading instance's copy behind, the page would be a deep link (a new entry) and
            // `/` would redirect elsewhere.
            let answers = try await withThrowingTaskGroup(of: (path: String, response: TestResponse).self) { group in
                for index in 0..<8 {
                    let path = index < 6 ? "/movies/\(movie)" : "/"
                    group.addTask {
                        let browser = TestBrowser(port: reading)
                        browser.setCookie("flowserver_session", client.session)
                        return (path, try await browser.get(path))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (path, response) in answers {
                if path == "/" {
                    #expect(response.status == 303 && response.header("Location") == "/movies/\(movie)")
                } else {
                    #expect(response.status == 200, "\(path) answered \(response.status)")
                }
            }
        }
        let sources = try await client.history().compactMap { $0["source"] as? String }
        #expect(sources == ["start"] + Array(repeating: "api", count: 14), "pages changed nothing")
    }

    @Test(
        "an id minted by A is known to B before anything is stored; its first change, on B, is seen by A; forged ids are replaced"
    )
    func sharedIDs() async throws {
        let (cluster, a, b, portA, portB) = try await instances()
        defer { withExtendedLifetime((cluster, a, b)) {} }
        let browser = TestBrowser(port: portA)
        let home = try await browser.get("/")
        #expect(home.status == 303 && home.header("Set-Cookie") != nil)
        let id = try #require(browser.cookie("flowserver_session"))
        let onB = TestBrowser(port: portB)
        onB.setCookie("flowserver_session", id)
        let top = try #require(home.header("Location"))
        let page = try await onB.get(top)
        #expect(page.status == 200 && page.header("Set-Cookie") == nil, "B accepts A's id")
        let live = (try await liveSessions(port: portA), try await liveSessions(port: portB))
        #expect(live == (0, 0), "nothing stored yet")
        let client = SessionClient(port: portB, session: id)
        #expect(try await client.step(#"{"name":"userIsLoggedIn","params":{"name":"Ada"}}"#).status == 200)
        let history = try await client.on(port: portA).history()
        #expect(history.compactMap { $0["source"] as? String } == ["start", "api"])
        #expect(try await liveSessions(port: portA) == 1)
        for forged in [
            String(id.dropLast()), String(id.dropLast()) + (id.hasSuffix("0") ? "1" : "0"),
            String(repeating: "0", count: 72),
        ] {
            let stranger = TestBrowser(port: portB)
            stranger.setCookie("flowserver_session", forged)
            #expect(try await stranger.get(top).header("Set-Cookie") != nil, "\(forged) is replaced")
            #expect(stranger.cookie("flowserver_session") != forged)
        }
    }

    @Test("a step on A reaches an event stream open on B (live tabs across instances)")
    func streamsAcrossInstances() async throws {
        let (cluster, a, b, portA, portB) = try await instances()
        defer { withExtendedLifetime((cluster, a, b)) {} }
        let onA = try await SessionClient.onboarded(port: portA)
        let session = onA.session
        let stream = try await onThread { () -> StreamBox in
            let connection = try TestConnection(port: portB, receiveTimeout: 10)
            try connection.send(
                "GET /api/v1/session/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(session)\r\n\r\n")
            #expect(try connection.readHead().status == 200)
            _ = try connection.readStream(until: "retry:")
            return StreamBox(connection)
        }
        #expect(try await onA.pickMovie(3).top == "/movies/3")
        let event = try await onThread { try stream.connection.readStream(until: "event: version") }
        #expect(event.contains("\"url\":\"/movies/3\""))
    }

    @Test(
        "stopping the database mid-run gives 503s with Retry-After, loses nothing acknowledged, and service comes back by itself"
    )
    func outage() async throws {
        let (cluster, a, b, portA, portB) = try await instances()
        defer { withExtendedLifetime((cluster, a, b)) {} }
        let clients = [try await SessionClient.onboarded(port: portA)]
        let both = clients + [clients[0].on(port: portB)]
        var acknowledged: [(seq: Int, movie: Int)] = []
        func pick(_ index: Int) async throws -> SessionClient.Answer {
            let movie = index % 12 + 1
            let answer = try await both[index % 2].pickMovie(movie)
            if answer.status == 200, let seq = answer.seq { acknowledged.append((seq, movie)) }
            return answer
        }
        for index in 0..<20 { #expect(try await pick(index).status == 200) }

        try await cluster.stopped()
        for index in 20..<24 {
            let started = Date()
            let answer = try await pick(index)
            #expect(answer.status == 503 && answer.retryAfter != nil, "while the database is down: \(answer.status)")
            #expect(Date().timeIntervalSince(started) < 10)
        }

        try await cluster.restarted()
        let deadline = Date().addingTimeInterval(30)
        var recovered = [false, false]
        var index = 24
        while recovered.contains(false) && Date() < deadline {
            if try await pick(index).status == 200 {
                recovered[index % 2] = true
            } else {
                try await Task.sleep(for: .milliseconds(200))
            }
            index += 1
        }
        #expect(recovered == [true, true], "both instances answer again after the database is back")

        let history = try await both[1].history()
        let bySeq = Dictionary(
            uniqueKeysWithValues: history.compactMap { entry in (entry["seq"] as? Int).map { ($0, entry) } })
        #expect(history.compactMap { $0["seq"] as? Int } == Array(1...history.count))
        for (seq, movie) in acknowledged {
            #expect(bySeq[seq].flatMap(movieID) == movie, "acknowledged step \(seq) is in the history")
        }
    }
}
