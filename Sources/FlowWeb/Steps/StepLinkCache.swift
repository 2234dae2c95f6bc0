import FlowCore
import Synchronization

/// The `/_step/<name>?<params>` part of step links, by step: pages link the same steps again and
/// again (a movie's cast, a list's movies), and encoding a step is the costly part of a link.
/// Bounded: when full it starts over.
final class StepLinkCache: Sendable {
    /// A step as a dictionary key. @unchecked: it only ever wraps a `FlowStep`, which is `Sendable`.
    private struct Key: Hashable, @unchecked Sendable {
        let step: AnyHashable
    }

    private let links = Mutex<[Key: String]>([:])
    private let capacity: Int

    init(capacity: Int = 8192) { self.capacity = capacity }

    /// The link of `step` without its `_from` and `_r` fields, made by `make` when not cached.
    func link<Step: FlowStep>(for step: Step, make: (Step) -> String) -> String {
        let key = Key(step: AnyHashable(step))
        if let cached = links.withLock({ $0[key] }) { return cached }
        let link = make(step)
        links.withLock { links in
            if links.count >= capacity { links.removeAll(keepingCapacity: true) }
            links[key] = link
        }
        return link
    }

    /// The cache every page context shares.
    static let shared = StepLinkCache()
}
