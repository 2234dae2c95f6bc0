import ThreadLocal

/// One `Value` per thread, made on the thread's first use and freed when the thread ends.
///
/// For caches and counters that rendering reads and writes on every page, so that no memory is
/// written by two cores (rule 4 of FlowWeb.docc/Performance.md). Meant for long-lived instances
/// (`static let`, or a property of a long-lived object): a dropped instance frees only the
/// calling thread's value.
///
/// Noncopyable, so that reading ``current`` borrows the instance in place: as a class, every
/// read retained and released the one instance all threads read, which is the shared write
/// this type exists to avoid.
struct PerThread<Value: AnyObject>: ~Copyable, @unchecked Sendable {
    private let slot: ThreadSlot
    private let make: @Sendable () -> Value

    /// Values made by `make`, once per thread.
    init(_ make: @escaping @Sendable () -> Value) {
        guard let slot = ThreadSlot(destructor: releaseObject) else {
            preconditionFailure("no thread-specific slot is left")
        }
        self.slot = slot
        self.make = make
    }

    deinit {
        if let pointer = slot.pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        slot.delete()
    }

    /// The calling thread's value.
    var current: Value {
        if let pointer = slot.pointer { return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue() }
        let value = make()
        slot.hold(Unmanaged.passRetained(value).toOpaque())
        return value
    }
}

/// What a thread's slot of a ``PerThread`` holds, released when the thread ends.
private func releaseObject(_ pointer: UnsafeMutableRawPointer?) {
    if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
}
