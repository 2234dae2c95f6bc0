#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `Value` per thread, made on the thread's first use and freed when the thread ends.
///
/// For caches and counters that rendering reads and writes on every page: shared by all
/// threads, each page would take a lock and write reference counts in memory the other threads
/// write too, and passing that memory from core to core costs more than the work it guards.
/// Per thread, nothing is shared. Meant for long-lived instances (`static let`, or a property of
/// a long-lived object): a dropped instance frees only the calling thread's value.
///
/// Noncopyable, so that reading ``current`` borrows the instance in place: as a class, every
/// read retained and released the one instance all threads read, which is the shared write
/// this type exists to avoid.
struct PerThread<Value: AnyObject>: ~Copyable, @unchecked Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () -> Value

    /// Values made by `make`, once per thread.
    init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "pthread_key_create failed (\(status)): no thread-specific slot is left")
        self.key = key
        self.make = make
    }

    deinit {
        if let pointer = pthread_getspecific(key) { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        pthread_key_delete(key)
    }

    /// The calling thread's value.
    var current: Value {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue() }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
