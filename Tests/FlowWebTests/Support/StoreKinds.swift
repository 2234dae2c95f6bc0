import FlowStore
import FlowStorePostgres
import FlowStoreSQLite
import FlowTesting
import FlowWeb
import Foundation
import MicroHTTP
import ProcessTestSupport

/// The stores FlowServer ships, for tests that must hold on each.
enum StoreKind: String, CaseIterable, CustomStringConvertible {
    case memory, sqlite, postgres

    var description: String { rawValue }

    /// Runs `body` with a new, prepared store of this kind (its services running), and removes
    /// the store afterwards.
    func withStore(_ body: @escaping @Sendable (any SessionStore) async throws -> Void) async throws {
        switch self {
        case .memory:
            try await body(MemorySessionStore())
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "flowweb-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = try SQLiteSessionStore(path: directory.appendingPathComponent("sessions.sqlite").path)
            try await withRunningServices(store.services) {
                try await store.prepare()
                try await body(store)
            }
        case .postgres:
            let cluster = try await PostgresCluster.started()
            // Generous: a cluster just started while the suite runs on two cores can take over the
            // default 3 s to answer its first connection; these tests measure no outage.
            let store = try PostgresSessionStore(url: cluster.url, timeout: .seconds(15))
            try await withRunningServices(store.services) {
                try await store.prepare()
                try await body(store)
            }
            _ = cluster
        }
    }
}

/// A server of `app` (the test app by default) on `store`, on a free port of 127.0.0.1, with
/// `configure` applied to its web configuration; the caller stops it.
func startInstance(
    _ app: WebApp<WebStep>? = nil, on store: any SessionStore, configure: (inout WebConfiguration) -> Void = { _ in }
) throws -> HTTPServer {
    let templates = try FlowWebDefaults.templates(directory: try TestTemplates.directory().path)
    var configuration = WebConfiguration()
    configure(&configuration)
    let responder = FlowWebResponder(
        app: try app ?? TestSite.webApp(), store: store, templates: templates, configuration: configuration)
    let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: responder)
    try server.start()
    return server
}
