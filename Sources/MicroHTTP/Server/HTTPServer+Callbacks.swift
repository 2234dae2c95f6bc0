import CMicroHTTPD

/// libmicrohttpd's callbacks: C function pointers without captures, which find the server in
/// `cls` and the request in `*con_cls` (see shared/notes/libmicrohttpd.md).
typealias URILogCallback =
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?
    ) -> UnsafeMutableRawPointer?

func microHTTPAccessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let method, let raw = requestContext?.pointee else { return MHD_Result.NO }
    // Borrowed, not retained: both objects outlive the call (the daemon's context until the
    // daemon stopped, the request's until the completion callback), and a retain of an object
    // that every thread shares is an atomic write to one cache line that the threads would
    // pass back and forth.
    return Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { daemon in
        Unmanaged<RequestContext>.fromOpaque(raw)._withUnsafeGuaranteedRef { context in
            daemon.server.handle(
                context, connection: connection, method: method, uploadData: uploadData, uploadDataSize: uploadDataSize)
        }
    }
}

func microHTTPRequestStarted(
    cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls, let uri, let connection else { return nil }
    return Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { daemon in
        daemon.inFlight.add(1, ordering: .relaxed)
        let open = CMicroHTTPD_socket_context(connection).map {
            Unmanaged<OpenConnection>.fromOpaque($0).takeUnretainedValue()
        }
        if let open { daemon.deadlines.requestStarted(on: open) }
        let context = RequestContext(
            target: String(cString: uri), connection: ConnectionHandle(pointer: connection, daemon: daemon),
            openConnection: open)
        return Unmanaged.passRetained(context).toOpaque()
    }
}

/// A connection opened or closed: keeps its record (deadline, client) in its socket context and
/// counts it for its client.
func microHTTPConnectionNotified(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { daemon in
        if CMicroHTTPD_connection_started(code) != 0 {
            let client =
                daemon.clientLimit.limit > 0 ? CMicroHTTPD_client_address(connection).flatMap(ClientAddress.init) : nil
            let open = daemon.deadlines.opened(client: client, socket: CMicroHTTPD_connection_socket(connection))
            if let client { daemon.clientLimit.opened(client) }
            socketContext.pointee = Unmanaged.passRetained(open).toOpaque()
        } else if let raw = socketContext.pointee {
            socketContext.pointee = nil
            let open = Unmanaged<OpenConnection>.fromOpaque(raw).takeRetainedValue()
            daemon.deadlines.closed(open)
            if let client = open.client { daemon.clientLimit.closed(client) }
        }
    }
}

/// Whether to keep a connection just accepted: not when its client holds the most connections
/// the per-client limit allows.
func microHTTPAcceptPolicy(cls: UnsafeMutableRawPointer?, address: UnsafePointer<sockaddr>?, length: socklen_t)
    -> MHD_Result
{
    guard let cls, let address, let client = ClientAddress(address) else { return MHD_Result.YES }
    return Unmanaged<ClientConnectionLimit>.fromOpaque(cls)._withUnsafeGuaranteedRef { $0.admits(client) }
        ? MHD_Result.YES : MHD_Result.NO
}

func microHTTPRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, reason: MHD_RequestTerminationCode
) {
    guard let cls, let raw = requestContext?.pointee else { return }
    requestContext?.pointee = nil
    let request = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { daemon in
        if let open = request.openConnection { daemon.deadlines.requestAnswered(on: open) }
        daemon.inFlight.subtract(1, ordering: .releasing)
    }
}

func microHTTPLog(cls: UnsafeMutableRawPointer?, format: UnsafePointer<CChar>?, arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    CMicroHTTPD_format_log(&buffer, buffer.count, format, arguments)
    let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().server.logger
        .debug("libmicrohttpd: \(message.split(separator: "\n").joined(separator: " "))")
}

/// The option array for `CMicroHTTPD_start`: one daemon (one thread) serving the listening
/// `socket`, for up to `connectionLimit` connections, its callbacks getting `daemon` (a
/// ``DaemonContext``) as `cls`.
func daemonOptions(
    _ configuration: HTTPServer.Configuration, daemon: UnsafeMutableRawPointer, socket: Int32, connectionLimit: Int
) -> [MHD_OptionItem] {
    let requestStarted: URILogCallback = microHTTPRequestStarted
    let requestCompleted: MHD_RequestCompletedCallback = microHTTPRequestCompleted
    let connectionNotified: MHD_NotifyConnectionCallback = microHTTPConnectionNotified
    let log: MHD_LogCallback = microHTTPLog
    return [
        // The logger goes first, so that libmicrohttpd reports everything after it through us.
        MHD_OptionItem(option: MHD_OPTION.EXTERNAL_LOGGER, value: unsafeBitCast(log, to: Int.self), ptr_value: daemon),
        MHD_OptionItem(option: MHD_OPTION.LISTEN_SOCKET, value: Int(socket), ptr_value: nil),
        MHD_OptionItem(option: MHD_OPTION.CONNECTION_TIMEOUT, value: configuration.connectionTimeout, ptr_value: nil),
        MHD_OptionItem(option: MHD_OPTION.CONNECTION_LIMIT, value: connectionLimit, ptr_value: nil),
        MHD_OptionItem(
            option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimit, ptr_value: nil),
        MHD_OptionItem(
            option: MHD_OPTION.URI_LOG_CALLBACK, value: unsafeBitCast(requestStarted, to: Int.self), ptr_value: daemon),
        MHD_OptionItem(
            option: MHD_OPTION.NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted, to: Int.self), ptr_value: daemon
        ),
        MHD_OptionItem(
            option: MHD_OPTION.NOTIFY_CONNECTION, value: unsafeBitCast(connectionNotified, to: Int.self),
            ptr_value: daemon),
        MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil),
    ]
}

extension HTTPServer {
    /// One call of the access handler for `context`: headers, body chunks, completion, and
    /// the call after a resume that queues the answer. A response is never queued on the first
    /// call (that would be an "early response" that closes keep-alive connections), except
    /// to refuse a body that is declared too large.
    func handle(
        _ context: RequestContext, connection: OpaquePointer, method: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>?
    ) -> MHD_Result {
        switch context.stage {
        case .started:
            context.stage = .receiving
            context.headers = readHeaders(connection)
            if let declared = context.headers["Content-Length"].flatMap(Int.init) {
                if declared > configuration.maxBodySize { return reject(context, bodyTooLarge()) }
                context.body.reserveCapacity(declared)
            }
            return MHD_Result.YES
        case .receiving:
            let size = uploadDataSize?.pointee ?? 0
            if size > 0 {
                uploadDataSize?.pointee = 0
                return receive(UnsafeRawBufferPointer(start: uploadData, count: size), into: context)
            }
            if context.discardedBytes > 0 { return reject(context, bodyTooLarge()) }
            return dispatch(context, method: HTTPMethod(rawValue: String(cString: method)))
        case .waiting:
            guard let response = context.takeResponse() else { return MHD_Result.YES }
            return queue(response, for: context)
        case .answered:
            uploadDataSize?.pointee = 0
            return MHD_Result.YES
        }
    }

    /// Keeps a chunk of the body, or discards it once the body is over the limit: libmicrohttpd
    /// lets a response be queued only when the upload is complete, so the `413` waits for it.
    /// A client that goes on sending far past the limit is disconnected.
    private func receive(_ chunk: UnsafeRawBufferPointer, into context: RequestContext) -> MHD_Result {
        if context.discardedBytes == 0, context.body.count + chunk.count <= configuration.maxBodySize {
            context.body.append(contentsOf: chunk)
            return MHD_Result.YES
        }
        context.discardedBytes += context.body.count + chunk.count
        context.body = []
        return context.discardedBytes > configuration.maxBodySize + RequestContext.discardLimit
            ? MHD_Result.NO : MHD_Result.YES
    }

    private func dispatch(_ context: RequestContext, method: HTTPMethod) -> MHD_Result {
        let request: Request
        do {
            request = try Request(
                method: method, target: context.target, headers: context.headers, body: context.body,
                remoteAddress: CMicroHTTPD_client_address(context.connection.pointer).flatMap(SocketAddress.describe))
        } catch {
            return reject(context, RequestRejection(status: .badRequest, message: "Bad request: \(error)"))
        }
        // The request has them now; a context lives as long as its answer (a stream: for hours).
        context.body = []
        context.headers = HTTPHeaders()
        context.method = method
        if let open = context.openConnection { context.connection.daemon.deadlines.requestReceived(on: open) }
        let daemon = context.connection.daemon
        daemon.handing.withLock { $0 = context }
        defer { daemon.handing.withLock { $0 = nil } }
        if let response = responder.immediateResponse(to: request) { return queue(response, for: context) }
        context.stage = .waiting
        let responder = self.responder
        // A responder that answers later calls `finish` itself, with no task. Otherwise a task runs
        // on this thread until the responder first suspends: a responder that answers without
        // waiting is answered right here, with no suspension and no thread hop. Then on the
        // executor the responder prefers.
        if !responder.answerLater(to: request, answer: { self.finish(context, with: $0) }) {
            Task.immediate(executorPreference: responder.preferredTaskExecutor()) {
                let response = await responder.respond(to: request)
                self.finish(context, with: response)
            }
        }
        if let response = context.takeResponse() { return queue(response, for: context) }
        return suspendUntilAnswered(context)
    }

    /// Suspends the connection until ``finish(_:with:)`` resumes it, unless the answer arrived
    /// meanwhile (then it is queued now) or the server is stopping (then `503`).
    private func suspendUntilAnswered(_ context: RequestContext) -> MHD_Result {
        enum Outcome {
            case suspended
            case answer(Response)
        }
        let outcome: Outcome = context.connection.daemon.suspended.withLock { suspended in
            context.handoff.withLock { handoff in
                switch handoff {
                case .ready(let response):
                    handoff = .taken
                    return .answer(response)
                case .responderRunning where suspended.refusesWork:
                    handoff = .taken
                    return .answer(.text("The server is shutting down", status: .serviceUnavailable))
                case .responderRunning:
                    handoff = .suspended
                    suspended.contexts[ObjectIdentifier(context)] = context
                    MHD_suspend_connection(context.connection.pointer)
                    return .suspended
                case .suspended, .taken:
                    preconditionFailure("a request is suspended once and answered once")
                }
            }
        }
        switch outcome {
        case .suspended: return MHD_Result.YES
        case .answer(let response): return queue(response, for: context)
        }
    }

    /// Hands `response` over: to the access handler still on the stack, or to the suspended
    /// connection, which is resumed (libmicrohttpd then calls the access handler again on its
    /// own thread, and that call queues the response). Does nothing when the stop already
    /// answered the connection.
    private func finish(_ context: RequestContext, with response: Response) {
        let mustResume = context.handoff.withLock { handoff in
            switch handoff {
            case .responderRunning:
                handoff = .ready(response)
                return false
            case .suspended:
                handoff = .ready(response)
                return true
            case .ready, .taken:
                return false
            }
        }
        guard mustResume else { return }
        // The connection is taken out under the daemon's lock (a stop answers those still in),
        // and resumed outside it: resuming writes to the daemon's wakeup pipe, and the daemon's
        // thread, which takes the lock to suspend its next connection, would wait for that
        // write (a contended lock that sleeps in the kernel, at every async answer).
        let daemon = context.connection.daemon
        let taken = daemon.suspended.withLock { suspended in
            guard suspended.contexts.removeValue(forKey: ObjectIdentifier(context)) != nil else { return false }
            daemon.resuming.add(1, ordering: .relaxed)
            return true
        }
        guard taken else { return }
        context.connection.resume()
        daemon.resuming.subtract(1, ordering: .releasing)
    }

    private func bodyTooLarge() -> RequestRejection {
        RequestRejection(
            status: .contentTooLarge,
            message: "The request body is larger than the limit of \(configuration.maxBodySize) bytes")
    }

    private func reject(_ context: RequestContext, _ rejection: RequestRejection) -> MHD_Result {
        queue(responder.response(for: rejection), for: context)
    }

    /// Hands `response` to libmicrohttpd. Consumes it, and reads its headers and body in place:
    /// a responder may answer every request with one shared response, and each retain of its
    /// arrays would be a write to memory that all threads share.
    private func queue(_ response: consuming Response, for context: RequestContext) -> MHD_Result {
        context.stage = .answered
        if let stream = response.stream { return queue(streaming: response, stream, for: context) }
        let lent = LentResponseBody()
        guard let created = lent.libmicrohttpdResponse(lending: response.body) else {
            logger.error("libmicrohttpd could not create a response of \(response.body.count) bytes")
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(created) }
        addHeaders(response.headers, to: created)
        let status = UInt32(response.status.code)
        lent.keep((consume response).body)
        return MHD_queue_response(context.connection.pointer, status, created)
    }

    /// Queues a response whose body `stream` produces (chunked; libmicrohttpd asks for more as it
    /// sends), and keeps the stream among the server's until it closes, so a stop can end it.
    private func queue(streaming response: borrowing Response, _ stream: ResponseStream, for context: RequestContext)
        -> MHD_Result
    {
        let reader = Unmanaged.passRetained(StreamReader(stream: stream, connection: context.connection))
        guard
            let created = MHD_create_response_from_callback(
                UInt64.max, 1 << 10, readStream, reader.toOpaque(), releaseStream)
        else {
            reader.release()
            stream.closed()
            logger.error("libmicrohttpd could not create a streamed response")
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(created) }
        addHeaders(response.headers, to: created)
        keep(stream)
        return MHD_queue_response(context.connection.pointer, UInt32(response.status.code), created)
    }

    private func addHeaders(_ headers: HTTPHeaders, to created: OpaquePointer) {
        headers.forEachField { name, value in
            guard !HTTPHeaders.same(name, "Content-Length") else { return }
            guard HTTPHeaders.isValid(name: name, value: value), Self.add(name, value, to: created) else {
                logger.error("dropped an invalid response header", metadata: ["name": "\(name)"])
                return
            }
        }
    }

    /// Adds header `name: value` to `created`; `false` when libmicrohttpd refuses it.
    /// `withCString`: a short string is copied on the stack, where passing the `String` itself
    /// would allocate a C copy of it.
    @inline(__always)
    private static func add(_ name: String, _ value: String, to created: OpaquePointer) -> Bool {
        name.withCString { name in value.withCString { value in MHD_add_response_header(created, name, value) } }
            == MHD_Result.YES
    }

    private func readHeaders(_ connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(
                connection, MHD_ValueKind.HEADER_KIND,
                { cls, _, key, value in
                    guard let cls, let key else { return MHD_Result.YES }
                    cls.assumingMemoryBound(to: HTTPHeaders.self).pointee
                        .add(String(cString: key), value.map { String(cString: $0) } ?? "")
                    return MHD_Result.YES
                }, pointer)
        }
        return headers
    }
}

/// A response body lent to libmicrohttpd without a copy: the box keeps the array, and with it
/// its storage, alive until libmicrohttpd has sent the response and calls `releaseResponseBody`.
private final class LentResponseBody {
    private var bytes: [UInt8] = []

    /// A libmicrohttpd response whose data is `body`'s own bytes, not a copy of them; ``keep(_:)``
    /// must receive that same array before the response is queued.
    func libmicrohttpdResponse(lending body: borrowing [UInt8]) -> OpaquePointer? {
        guard !body.isEmpty else {
            return MHD_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)
        }
        // An array's storage stays where it is while nobody changes the array, and nobody can:
        // once kept, the box holds it and never mutates it.
        let bytes = body.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
        let lent = Unmanaged.passRetained(self)
        let free: MHD_ContentReaderFreeCallback = releaseResponseBody
        guard
            let response = MHD_create_response_from_buffer_with_free_callback_cls(
                body.count, bytes, free, lent.toOpaque())
        else {
            lent.release()
            return nil
        }
        return response
    }

    /// Keeps `body` (moved in, not retained again) until libmicrohttpd is done with it.
    func keep(_ body: consuming [UInt8]) { bytes = body }
}

private func releaseResponseBody(_ lent: UnsafeMutableRawPointer?) {
    guard let lent else { return }
    Unmanaged<LentResponseBody>.fromOpaque(lent).release()
}

/// What libmicrohttpd's content reader of a streamed response holds: the stream, and the
/// connection it suspends while the stream has nothing to send.
private final class StreamReader {
    let stream: ResponseStream
    let connection: ConnectionHandle

    init(stream: ResponseStream, connection: ConnectionHandle) {
        self.stream = stream
        self.connection = connection
    }
}

private func readStream(
    _ reader: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
) -> Int {
    guard let reader, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
    let stream = Unmanaged<StreamReader>.fromOpaque(reader).takeUnretainedValue()
    return stream.stream.read(
        into: UnsafeMutableRawBufferPointer(start: buffer, count: max), connection: stream.connection)
}

private func releaseStream(_ reader: UnsafeMutableRawPointer?) {
    guard let reader else { return }
    Unmanaged<StreamReader>.fromOpaque(reader).takeRetainedValue().stream.closed()
}
