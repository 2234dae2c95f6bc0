/// A flow of any registered type, as the tree stores it.
public struct AnyFlow: Sendable, Hashable, CustomStringConvertible {
    /// The flow value (its state).
    public internal(set) var base: any FlowState {
        didSet { stateJSON = Self.json(of: base) }
    }
    /// The state's JSON form, made when the state is set or read from it: a commit writes the
    /// states of the flows its step did not navigate without encoding them again. `nil` when the
    /// state did not encode (the commit encodes it again, and says why).
    private(set) var stateJSON: JSON?

    /// Wraps a flow.
    public init(_ flow: some FlowState) {
        base = flow
        stateJSON = Self.json(of: flow)
    }

    /// Wraps a flow read from `stateJSON`.
    init(_ flow: some FlowState, stateJSON: JSON) {
        base = flow
        self.stateJSON = stateJSON
    }

    private static func json(of state: any FlowState) -> JSON? { try? CompactJSONEncoder().encodeValue(state) }

    /// The registered name of the flow's type.
    public var name: String { type(of: base).name }
    /// The container of the flow's type.
    public var container: ContainerKind { type(of: base).container }

    public var description: String { "\(name)(\(base))" }

    public static func == (lhs: AnyFlow, rhs: AnyFlow) -> Bool {
        isEqual(lhs.base, to: rhs.base)
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
        isEqual(lhs.base, to: rhs.base)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(AnyHashable(base)) }

    /// The page as `P`, when it is one.
    public func `as`<P: Page>(_ type: P.Type) -> P? { base as? P }
}
