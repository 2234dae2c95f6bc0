import FlowCore
import FlowStore

/// Reads a stored session's tree and bookkeeping back, for one app's flows.
struct StoredSessionDecoder: Sendable {
    /// The app's flows, by name.
    let registry: FlowRegistry

    /// The tree and bookkeeping stored in `record`.
    ///
    /// - Throws: ``UnreadableSession`` saying what no longer decodes.
    func decode(_ record: SessionRecord) throws(UnreadableSession) -> DecodedSessionCache.Decoded {
        let tree: NavigationTree
        do { tree = try NavigationTree(json: record.tree, appData: record.appData, registry: registry) } catch {
            throw UnreadableSession(session: record.id, cause: cause(of: error, in: record), reason: "\(error)")
        }
        do {
            let extra =
                record.extra.isEmpty
                ? SessionExtra() : try CompactJSONDecoder().decode(SessionExtra.self, from: record.extra)
            return DecodedSessionCache.Decoded(tree: tree, extra: extra)
        } catch {
            throw UnreadableSession(session: record.id, cause: .bookkeeping, reason: "\(error)")
        }
    }

    /// Whether `appData` (a stored session's) still decodes as the app's data.
    func canRead(appData: [UInt8]) -> Bool {
        (try? registry.appData(json: appData)) != nil
    }

    private func cause(of error: any Error, in record: SessionRecord) -> UnreadableSession.Cause {
        if let error = error as? NavigationError {
            if error.unknownPageName != nil { return .unknownPage }
            if error.unknownFlowName != nil { return .unknownFlow }
            return .tree
        }
        return canRead(appData: record.appData) ? .state : .appData
    }
}
