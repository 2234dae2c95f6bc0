/// A flow of any registered type, as the tree stores it.
public struct AnyFlow: Sendable, Hashable, CustomStringConvertible {
    /// The flow value (its state).
    public internal(set) var base: any FlowState

    /// Wraps a flow.
    public init(_ flow: some FlowState) { base = flow }

    /// The registered name of the flow's type.
    public var name: String { type(of: base).name }
    /// The container of the flow's type.
    public var container: ContainerKind { type(of: base).container }

    public var description: String { "\(name)(\(base))" }

    public static func == (lhs: AnyFlow, rhs: AnyFlow) -> Bool {
        AnyHashable(lhs.base) == AnyHashable(rhs.base)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }
}

/// A page of any registered type, as the tree stores it.
public struct AnyPage: Sendable, Hashable, CustomStringConvertible {
    /// The page value (its params).
    public let base: any Page

    /// Wraps a page.
    public init(_ page: some Page) { base = page }

    /// The registered name of the page's type.
    public var name: String { type(of: base).name }
    /// The URL path derived from the params, percent-encoded (``PagePath/encoded``).
    public var path: String { base.path.encoded }

    public var description: String { "\(name)(\(base))" }

    public static func == (lhs: AnyPage, rhs: AnyPage) -> Bool {
        AnyHashable(lhs.base) == AnyHashable(rhs.base)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }

    /// The page as `P`, when it is one.
    public func `as`<P: Page>(_ type: P.Type) -> P? { base as? P }
}
