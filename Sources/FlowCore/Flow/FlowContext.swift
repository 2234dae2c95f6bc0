/// What flows may use besides their own state: the injected services (data, clocks,
/// randomness), and the session's app data. Never stored in the tree.
///
/// ```swift
/// var context = FlowContext()
/// context.register(MovieCatalog.demo)
/// let catalog = context[MovieCatalog.self]   // in a flow
/// ```
public struct FlowContext: Sendable {
    private var services: [ObjectIdentifier: any Sendable] = [:]

    /// An empty context.
    public init() {}

    /// Adds (or replaces) a service, found later by its type.
    public mutating func register<Service: Sendable>(_ service: Service) {
        services[ObjectIdentifier(Service.self)] = service
    }

    /// The registered service of type `Service`, or `nil`.
    public subscript<Service: Sendable>(_ type: Service.Type) -> Service? {
        services[ObjectIdentifier(type)] as? Service
    }
}
