import FlowCore
import Synchronization

/// The `/_step/<name>?<params>` part of step links, by step: pages link the same steps again and
/// again (a movie's cast, a list's movies), and encoding a step is the costly part of a link.
/// Bounded: when full it starts over.
///
/// One table per step type, keyed by the step itself: hashing and comparing a concrete step is
/// cheap, where an `AnyHashable` key cost a box and a dynamic cast per comparison.
final class StepLinkCache: Sendable {
    /// The links of one step type. Only read and written under the cache's lock.
    private final class Table<Step: FlowStep> {
        var links: [Step: String] = [:]
    }

    /// Tables by step type; the value under `ObjectIdentifier(S.self)` is always a `Table<S>`.
    private let tables = Mutex<[ObjectIdentifier: AnyObject]>([:])
    private let capacity: Int

    init(capacity: Int = 8192) { self.capacity = capacity }

    /// The link of `step` without its `_from` and `_r` fields, made by `make` when not cached.
    func link<Step: FlowStep>(for step: Step, make: (Step) -> String) -> String {
        if let cached = tables.withLock({ Self.table(Step.self, in: &$0).links[step] }) { return cached }
        let link = make(step)
        tables.withLock { tables in
            let table = Self.table(Step.self, in: &tables)
            if table.links.count >= capacity { table.links.removeAll(keepingCapacity: true) }
            table.links[step] = link
        }
        return link
    }

    private static func table<Step: FlowStep>(_ type: Step.Type, in tables: inout [ObjectIdentifier: AnyObject]) -> Table<Step> {
        if let table = tables[ObjectIdentifier(type)] { return unsafeDowncast(table, to: Table<Step>.self) }
        let table = Table<Step>()
        tables[ObjectIdentifier(type)] = table
        return table
    }

    /// The cache every page context shares.
    static let shared = StepLinkCache()
}
