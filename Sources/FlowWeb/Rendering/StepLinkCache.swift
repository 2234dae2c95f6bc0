import FlowCore

/// The `/_step/<name>?<params>` part of step links, by step: pages link the same steps again and
/// again (a movie's cast, a list's movies), and encoding a step is the costly part of a link.
/// Bounded: when a thread's table of a step type is full, it starts over.
///
/// One table per step type, keyed by the step itself: hashing and comparing a concrete step is
/// cheap, where an `AnyHashable` key cost a box and a dynamic cast per comparison. The tables
/// are per thread (see ``PerThread`` for why), so a link is made once per thread.
final class StepLinkCache: Sendable {
    /// The links of one step type.
    private final class Table<Step: FlowStep> {
        var links: [Step: String] = [:]
    }

    /// One thread's tables by step type; the value under `ObjectIdentifier(S.self)` is always a
    /// `Table<S>`.
    private final class Tables {
        var byType: [ObjectIdentifier: AnyObject] = [:]
        /// The table used last: an app has one step type, so this is nearly always the one.
        var last: (type: ObjectIdentifier, table: AnyObject)?

        func table<Step: FlowStep>(_ type: Step.Type) -> Table<Step> {
            if let last, last.type == ObjectIdentifier(type) { return unsafeDowncast(last.table, to: Table<Step>.self) }
            let table = byType[ObjectIdentifier(type)].map { unsafeDowncast($0, to: Table<Step>.self) } ?? Table<Step>()
            byType[ObjectIdentifier(type)] = table
            last = (ObjectIdentifier(type), table)
            return table
        }
    }

    private let tables = PerThread { Tables() }
    private let capacity: Int

    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The link of `step` without its `_from` and `_r` fields, made by `make` when not cached.
    func link<Step: FlowStep>(for step: Step, make: (Step) -> String) -> String {
        let table = tables.current.table(Step.self)
        if let cached = table.links[step] { return cached }
        let link = make(step)
        if table.links.count >= capacity { table.links.removeAll(keepingCapacity: true) }
        table.links[step] = link
        return link
    }

    /// The cache every page context shares.
    static let shared = StepLinkCache()
}
