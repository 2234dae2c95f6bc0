import FlowCore

/// One change to what an app's stored sessions hold, between two versions of the app: applied
/// to every session stored before it, on read, before decoding, once, in the order the app lists
/// its migrations (``WebApp/migrations``) — in the spirit of GRDB's `DatabaseMigrator`. A
/// session records how many of the app's migrations it has had, so append new migrations at the
/// end and never edit or remove one that shipped.
///
/// What needs no migration: a new page, flow or step; a new optional field (or one with a
/// default in its `init(from:)`) in a flow's state, a page's params or the app data. What does:
/// a page, flow or step renamed; a required field added; a page removed. Helpers cover those;
/// the initializer takes closures over the stored JSON for anything else.
///
/// ```swift
/// let app = try WebApp(flows: flows, pages: pages, version: "2.0", migrations: [
///     .renamePage("movie", to: "film"),
///     .renameFlow("watched", to: "seen"),
///     .renameStep("movieIsPicked", to: "filmIsPicked"),
///     .addField("aboutRequests", value: .int(0), toFlow: "wishlist"),
///     .removePage("trending"),
/// ])
/// ```
public struct SessionMigration: Sendable {
    /// What the migration does, for logs and reports (`rename page movie → film`).
    public let name: String
    let tree: @Sendable (inout JSON) throws -> Void
    let appData: @Sendable (inout JSON) throws -> Void
    let navigation: @Sendable (inout JSON) throws -> Void

    /// A migration of the stored JSON: `tree` changes a session's tree
    /// (`{"nextNode", "root", "dismissed"?}`, nodes as `{"node", "flow", "state"?, "children",
    /// "selected"?, "presented"?}` and `{"node", "page", "params"?, "embedded"?}`), `appData` its app
    /// data (`null` for the app's initial data), and `navigation` each history entry's navigation
    /// record (`[trigger, outcome, [action…], [step…], top, topURL, adaptedStep?]`). History
    /// snapshots go through `tree` and `appData` too.
    ///
    /// - Parameters:
    ///   - name: what it does, in words.
    ///   - tree: changes a stored tree; it may throw to say the session cannot be migrated (it is
    ///     then set aside and started again).
    ///   - appData: changes stored app data.
    ///   - navigation: changes a history entry's navigation record.
    public init(
        _ name: String, tree: @escaping @Sendable (inout JSON) throws -> Void = { _ in },
        appData: @escaping @Sendable (inout JSON) throws -> Void = { _ in },
        navigation: @escaping @Sendable (inout JSON) throws -> Void = { _ in }
    ) {
        self.name = name
        self.tree = tree
        self.appData = appData
        self.navigation = navigation
    }
}
