import FlowCore
import FlowStore

/// Reads a stored session's tree and bookkeeping back, for one app's flows.
struct StoredSessionDecoder: Sendable {
    /// The app's flows, by name.
    let registry: FlowRegistry

    /// The tree and bookkeeping stored in `record`.
    func decode(_ record: SessionRecord) throws(WebError) -> DecodedSessionCache.Decoded {
        do {
            let tree = try NavigationTree(json: record.tree, appData: record.appData, registry: registry)
            let extra =
                record.extra.isEmpty
                ? SessionExtra() : try CompactJSONDecoder().decode(SessionExtra.self, from: record.extra)
            return DecodedSessionCache.Decoded(tree: tree, extra: extra)
        } catch {
            throw .internalError("session \(record.id.prefix(8))… cannot be read back: \(error)")
        }
    }
}
