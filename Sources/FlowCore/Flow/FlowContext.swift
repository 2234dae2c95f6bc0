/// What flows may use besides their own state: the injected services (data, clocks,
/// randomness), and the session's ``AppData``. Services are never stored in the tree.
///
/// ```swift
/// var context = FlowContext()
/// context.register(MovieCatalog.demo)
/// let catalog = context[MovieCatalog.self]   // in a flow
/// ```
public struct FlowContext: Sendable {
    private var services: [ObjectIdentifier: any Sendable] = [:]
    /// The session's app data, while a navigation or a rendering runs.
    private var appDataSlot: AppDataSlot?
    /// Whether `updateAppData` may change it (inside `navigate` only).
    private var appDataWritable = false

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

    /// The session's app data. Outside a session (no navigation or rendering running) it is
    /// `Data()`, the value a new session starts with.
    ///
    /// The type must be the one the app declared in ``FlowApp``; asking for another is a
    /// programming error and stops the program with a message saying so.
    public func appData<Data: AppData>(_ type: Data.Type = Data.self) -> Data {
        guard let current = appDataSlot?.current else { return Data() }
        guard let value = current.as(Data.self) else {
            preconditionFailure(
                "the app's data is \(Swift.type(of: current.base)), not \(Data.self): ask for the type given to FlowApp(appData:)"
            )
        }
        return value
    }

    /// Changes the session's app data. Allowed only inside `navigate(to:context:)`: the change is
    /// kept with the tree the navigation produces (and rebuilt by replays). Calling it from
    /// `adapt`, a rendering, or outside a session is a programming error and stops the program
    /// with a message saying so.
    public func updateAppData<Data: AppData>(_ type: Data.Type = Data.self, _ change: (inout Data) -> Void) {
        guard let slot = appDataSlot, appDataWritable else {
            preconditionFailure("app data changes only inside navigate(to:context:), where replays rebuild it")
        }
        var value = appData(Data.self)
        change(&value)
        slot.value.withLock { $0 = AnyAppData(value) }
    }

    /// This context reading `data` as the session's app data, read-only (for renderings).
    public func reading(_ data: AnyAppData) -> FlowContext {
        with(AppDataSlot(data), writable: false)
    }

    /// This context with each service replaced by `transform`'s answer for it (under the same
    /// type), in a table of its own.
    package func mappingServices(_ transform: (any Sendable) -> any Sendable) -> FlowContext {
        var copy = self
        copy.services = services.mapValues(transform)
        return copy
    }

    func with(_ slot: AppDataSlot, writable: Bool) -> FlowContext {
        var context = self
        context.appDataSlot = slot
        context.appDataWritable = writable
        return context
    }
}
