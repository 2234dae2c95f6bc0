import FlowServerRuntime
import FlowStorePostgres

extension StoreDriver {
    /// PostgreSQL (`--store postgres://USER:PASSWORD@HOST:PORT/DATABASE`): sessions shared by
    /// every instance that names the same database (see `PostgresSessionStore`).
    public static let postgres = StoreDriver(scheme: "postgres") { url, logger in
        try PostgresSessionStore(url: url, logger: logger)
    }
}
