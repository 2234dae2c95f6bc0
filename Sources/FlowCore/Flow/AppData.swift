import Synchronization

/// A session's app data: one `Codable` value per session, kept beside the tree's nodes, for
/// what belongs to the session rather than to a flow ("is onboarded", the user's preferences).
///
/// Flows read it with ``FlowContext/appData(_:)`` and change it with
/// ``FlowContext/updateAppData(_:_:)``, only inside `navigate(to:context:)`. A navigation is
/// deterministic given the tree, the app data and the recorded `adapt` decisions, so replaying a
/// session's history rebuilds its app data along with its tree. Pages read it when they render.
///
/// ```swift
/// struct DemoSession: AppData {
///     var onboarded = false
///     var userName: String?
/// }
/// let app = try FlowApp(root: AppFlow(), stepper: stepper, flows: flows, pages: pages, appData: DemoSession.self)
/// ```
public protocol AppData: Codable, Sendable, Hashable {
    /// The value a new session starts with.
    init()
}

/// The app data of an app that keeps none.
public struct NoAppData: AppData {
    /// The empty value.
    public init() {}
}

/// App data of the app's type, as a tree keeps it.
public struct AnyAppData: Sendable, Hashable, CustomStringConvertible {
    /// The value.
    public let base: any AppData

    /// Wraps a value.
    public init(_ value: some AppData) { base = value }

    /// The value as `Data`, when it is one.
    public func `as`<Data: AppData>(_ type: Data.Type) -> Data? { base as? Data }

    public var description: String { "\(base)" }

    public static func == (lhs: AnyAppData, rhs: AnyAppData) -> Bool {
        isEqual(lhs.base, to: rhs.base)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }
}

/// The app data a navigation or a rendering sees through its contexts (one slot per navigation;
/// contexts say whether they may write it: only `navigate`'s may).
final class AppDataSlot: Sendable {
    let value: Mutex<AnyAppData>

    init(_ value: AnyAppData) {
        self.value = Mutex(value)
    }

    var current: AnyAppData { value.withLock { $0 } }
}
