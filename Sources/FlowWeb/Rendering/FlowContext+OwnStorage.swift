import FlowCore

extension FlowContext {
    /// This context with a table of services of its own, for one thread's renderings (see
    /// FlowWeb.docc/Performance.md, rule 4): copies of a context share the table's storage, so threads that copy
    /// one context on every request would all write its reference count. Each service is boxed
    /// anew too (a service larger than three words lives in a box every copy of the table
    /// shares); what a service itself refers to stays shared.
    func withOwnStorage() -> FlowContext {
        mappingServices(Self.reboxed)
    }

    /// `service` in a new existential container: opened and wrapped again, a value that needs a
    /// box gets one of its own.
    private static func reboxed(_ service: any Sendable) -> any Sendable {
        func wrapped<Service: Sendable>(_ service: Service) -> any Sendable { service }
        return wrapped(service)
    }
}
