import Foundation

/// A response as read off the wire by ``TestConnection``.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers(name).first }
    /// Every value of header `name`.
    public func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A failure of the test client: connect, send or receive.
public struct TestConnectionError: Error, CustomStringConvertible {
    /// What failed.
    public var description: String
}

/// A blocking HTTP/1.1 client over a raw socket for tests against a live server on 127.0.0.1:
/// it sends exactly the bytes a test wants (malformed targets, slow or partial requests) and
/// keeps a connection alive. Use it off the Swift concurrency pool (see ``onThread(_:)``): it
/// blocks, and the server's responders need that pool.
public final class TestConnection {
    private let socket: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host`:`port` (`host` an IPv4 or IPv6 literal); reads give up after
    /// `receiveTimeout` seconds. The default is a guard against a server that never answers, not
    /// a bound on how fast it answers: a whole test suite run in parallel on two slow shared
    /// cores has kept an answer waiting for more than 15 seconds.
    public init(port: Int, host: String = "127.0.0.1", receiveTimeout: Int = 60) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var resolved: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &resolved) == 0, let address = resolved?.pointee else {
            throw TestConnectionError(description: "not an IP literal: \(host)")
        }
        defer { freeaddrinfo(resolved) }
        socket = Foundation.socket(address.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestConnectionError(description: "socket() failed") }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = connect(socket, address.ai_addr, address.ai_addrlen)
        // No close here: the object is fully initialized, so throwing runs `deinit`, which closes
        // the socket. Closing it here too closed whatever another thread had opened under the
        // same number meanwhile (seen as `send failed: errno 9` in a parallel test).
        guard result == 0 else {
            throw TestConnectionError(description: "connect to \(host) port \(port) failed: errno \(errno)")
        }
    }

    deinit { if socket >= 0 { Foundation.close(socket) } }

    /// Sends text as is.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends bytes as they are.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw TestConnectionError(description: "send failed: errno \(errno)") }
            offset += written
        }
    }

    /// Sends a request with `Content-Length` when there is a body, and reads the response.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> TestResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse(isHead: method == "HEAD")
    }

    /// Reads one response (without a body for `HEAD`, `204`, `304`).
    public func readResponse(isHead: Bool = false) throws -> TestResponse {
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestConnectionError(description: "bad status line in \(headText)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = TestResponse(status: status, headers: headers, body: [])
        if isHead || status == 204 || status == 304 || status < 200 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            try fill(length)
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try readChunks()
        } else {
            while try receive() > 0 {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads a streamed (chunked) body's data, after ``readHead()``, until it holds `marker`;
    /// answers everything read up to and including it. Throws when the stream ends first, or
    /// when nothing comes within the receive timeout.
    public func readStream(until marker: String) throws -> String {
        var text = ""
        while !text.contains(marker) {
            let lineEnd = try readUntil(Array("\r\n".utf8))
            let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) ?? 0
            buffer.removeFirst(lineEnd + 2)
            try fill(size + 2)
            text += String(decoding: buffer[..<size], as: UTF8.self)
            buffer.removeFirst(size + 2)
            if size == 0 { throw TestConnectionError(description: "the stream ended before \(marker): \(text)") }
        }
        return text
    }

    /// Reads a response's status and headers only (for a streamed body, read with
    /// ``readStream(until:)``).
    public func readHead() throws -> TestResponse {
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return TestResponse(status: statusLine.count >= 2 ? Int(statusLine[1]) ?? 0 : 0, headers: headers, body: [])
    }

    /// Whether the peer closed the connection within `seconds` (reads and discards data).
    public func waitForClose(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var pollfd = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&pollfd, 1, 100) > 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = recv(socket, &chunk, chunk.count, 0)
                if count == 0 || (count < 0 && errno != EAGAIN) { return true }
            }
        }
        return false
    }

    private func readChunks() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try readUntil(Array("\r\n".utf8))
            let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) ?? 0
            buffer.removeFirst(lineEnd + 2)
            try fill(size + 2)
            body += buffer[..<size]
            buffer.removeFirst(size + 2)
            if size == 0 { return body }
        }
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for start in searchFrom...(buffer.count - marker.count)
                where buffer[start..<start + marker.count].elementsEqual(marker) {
                    return start
                }
                searchFrom = buffer.count - marker.count + 1
            }
            guard try receive() > 0 else {
                throw TestConnectionError(description: "connection closed before the response head")
            }
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count {
            guard try receive() > 0 else {
                throw TestConnectionError(description: "connection closed before the body ended")
            }
        }
    }

    @discardableResult
    private func receive() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count >= 0 else { throw TestConnectionError(description: "recv failed: errno \(errno)") }
        buffer += chunk[..<count]
        return count
    }
}

/// Runs blocking work on a thread of its own, so it never occupies the Swift concurrency
/// pool that the server's responders need (it has only as many threads as cores).
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// One request on a fresh connection, off the concurrency pool.
public func fetch(
    port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8] = []
) async throws -> TestResponse {
    try await onThread {
        try TestConnection(port: port).request(method, target, headers: headers, body: body)
    }
}
