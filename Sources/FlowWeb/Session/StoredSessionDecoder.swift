import FlowCore
import FlowStore

/// Reads a stored session's tree and bookkeeping back, for one app's flows: migrated first when an
/// earlier version of the app stored it (see ``SessionMigration``).
struct StoredSessionDecoder: Sendable {
    /// The app's flows, by name.
    let registry: FlowRegistry
    /// The app's migrations (none unless given).
    var migrator = SessionMigrator(migrations: [])

    /// The tree and bookkeeping stored in `record`, migrated to this build's level (with the
    /// migrated bytes, which the session's next commit stores).
    ///
    /// - Throws: ``UnreadableSession`` saying what no longer decodes, or that a later version of
    ///   the app wrote it.
    func decode(_ record: SessionRecord) throws(UnreadableSession) -> DecodedSessionCache.Decoded {
        var extra: SessionExtra
        do {
            extra =
                record.extra.isEmpty
                ? SessionExtra() : try CompactJSONDecoder().decode(SessionExtra.self, from: record.extra)
        } catch {
            throw UnreadableSession(session: record.id, cause: .bookkeeping, reason: "\(error)")
        }
        guard extra.level != migrator.level else {
            do {
                let tree = try NavigationTree(json: record.tree, appData: record.appData, registry: registry)
                return DecodedSessionCache.Decoded(tree: tree, extra: extra)
            } catch {
                throw unreadable(record, error, appData: record.appData)
            }
        }
        guard extra.level < migrator.level else {
            throw UnreadableSession(
                session: record.id, cause: .newerVersion,
                reason:
                    "stored by app version \(extra.appVersion ?? "?") after \(extra.level) migrations; this build has \(migrator.level)"
            )
        }
        let migrated: (tree: JSON, appData: [UInt8])
        do { migrated = try migrator.migrate(tree: record.tree, appData: record.appData, from: extra.level) } catch {
            throw UnreadableSession(session: record.id, cause: .migration, reason: "\(error)")
        }
        extra.migrated(to: migrator.level, fromVersion: record.version + 1)
        let tree: NavigationTree
        do { tree = try NavigationTree(json: migrated.tree, appData: migrated.appData, registry: registry) } catch {
            throw unreadable(record, error, appData: migrated.appData)
        }
        let bytes = DecodedSessionCache.Migrated(
            tree: migrated.tree.bytes, appData: migrated.appData, extra: extra.jsonBytes())
        return DecodedSessionCache.Decoded(tree: tree, extra: extra, migrated: bytes)
    }

    /// Why `record`'s tree (with `appData`) did not decode.
    private func unreadable(_ record: SessionRecord, _ error: any Error, appData: [UInt8]) -> UnreadableSession {
        UnreadableSession(session: record.id, cause: cause(of: error, appData: appData), reason: "\(error)")
    }

    /// Whether `appData` (a stored session's) still decodes as the app's data.
    func canRead(appData: [UInt8]) -> Bool {
        (try? registry.appData(json: appData)) != nil
    }

    private func cause(of error: any Error, appData: [UInt8]) -> UnreadableSession.Cause {
        if let error = error as? NavigationError {
            if error.unknownPageName != nil { return .unknownPage }
            if error.unknownFlowName != nil { return .unknownFlow }
            return .tree
        }
        return canRead(appData: appData) ? .state : .appData
    }
}
