import MicroHTTP

/// Starts a server on 127.0.0.1 and a free port, runs `body`, and always stops the server.
func withServer<T>(
    _ configuration: HTTPServer.Configuration = .init(host: "127.0.0.1", port: 0),
    responder: some HTTPResponder,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
