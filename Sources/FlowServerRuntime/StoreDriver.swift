import FlowStore
import Logging

/// Opens the stores that live in a database server (`--store postgres://…`) for an app's command
/// line. Memory and SQLite need none; a server's driver is a product of its own (PostgreSQL's is
/// `StoreDriver.postgres` in `FlowServerPostgres`), so an app that does not use it does not link it.
///
/// ```swift
/// await FlowServerRuntime.run(.init(name: "shop", abstract: "Serves the shop.", stores: [.postgres])) { _ in try ShopApp.webApp() }
/// ```
public struct StoreDriver: Sendable {
    /// The URL scheme it opens (`postgres`; a `postgresql://` URL is the same scheme).
    public let scheme: String
    /// The store at a URL, not prepared yet (see `SessionStore.prepare()`).
    let open: @Sendable (_ url: String, _ logger: Logger) throws -> any SessionStore

    /// A driver for the URLs of `scheme`.
    ///
    /// - Parameters:
    ///   - scheme: the URL scheme it opens, as `StoreLocation` names it (`postgres`).
    ///   - open: the store at a URL, not prepared yet; `logger` logs warnings and up.
    public init(
        scheme: String, open: @escaping @Sendable (_ url: String, _ logger: Logger) throws -> any SessionStore
    ) {
        self.scheme = scheme
        self.open = open
    }
}

/// A `--store` the app's command has no driver for.
struct MissingStoreDriver: Error, CustomStringConvertible {
    /// The command's name.
    var command: String
    /// The scheme of the store asked for.
    var scheme: String

    var description: String {
        "\(command) cannot open \(scheme):// stores: it was built without their driver (for PostgreSQL, an app "
            + "depends on the product FlowServerPostgres and gives `stores: [.postgres]` in its FlowServerRuntime.Command)"
    }
}
