import FlowCore

/// An app's ``SessionMigration``s, applied by level: a stored document at level `n` (it has had
/// the first `n` migrations) gets the migrations from `n` on; the app's own level is how many it
/// has.
struct SessionMigrator: Sendable {
    let migrations: [SessionMigration]

    /// The level this build writes.
    var level: Int { migrations.count }

    /// A stored tree and app data (JSON; empty app data is the app's initial data) at `level`,
    /// migrated to this build's: the tree as a value (to decode without parsing it again), the app
    /// data as bytes (unchanged when no migration changed it).
    func migrate(tree: [UInt8], appData: [UInt8], from level: Int) throws -> (tree: JSON, appData: [UInt8]) {
        var tree = try JSON(parsing: tree)
        let storedAppData = appData.isEmpty ? JSON.null : try JSON(parsing: appData)
        var migratedAppData = storedAppData
        for migration in migrations[level...] {
            try migration.tree(&tree)
            try migration.appData(&migratedAppData)
        }
        guard migratedAppData != storedAppData else { return (tree, appData) }
        return (tree, migratedAppData == .null ? [] : migratedAppData.bytes)
    }

    /// A stored history entry (`[at, source, version, url, navigation, tree?, appData?, reason?]`)
    /// at `level`, migrated to this build's: its navigation, and its snapshot when it keeps one.
    /// The object forms of early versions are left as they are.
    func migrate(entry: [UInt8], from level: Int) throws -> [UInt8] {
        var entry = try JSON(parsing: entry)
        guard case .array = entry else { return entry.bytes }
        for migration in migrations[level...] {
            try entry.update(at: 4) { try migration.navigation(&$0) }
            try entry.update(at: 5) { try migration.tree(&$0) }
            try entry.update(at: 6) { try migration.appData(&$0) }
        }
        return entry.bytes
    }

    /// The version of the stored history entry `entry` (its third field), if it has the
    /// positional form.
    static func version(ofEntry entry: JSON) -> Int? {
        guard case .array(let fields) = entry, fields.count > 2, case .int(let version) = fields[2] else { return nil }
        return version
    }
}
