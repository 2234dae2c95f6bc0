#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A slot of which each thread has its own, holding one pointer (an object's, a block's): the
/// one thread-local device of FlowServer's modules, for what a server thread reuses from one
/// request to the next without sharing it (FlowWeb's article Performance.md, rule 4, says why
/// and where it may be used). Meant for long-lived slots (`static let`, or a property of a
/// long-lived object): an owner that goes away calls ``delete()``.
///
/// A plain value (the slot's key), so that reading it is one load: noncopyable, every read
/// of a slot held in an object borrowed it through an access check, which cost the SQLite
/// store's page reads 4 % of their CPU.
public struct ThreadSlot: Sendable {
    @usableFromInline let key: pthread_key_t

    /// A slot; `destructor`, when given, frees what a thread's slot holds when the thread ends
    /// (without it, what the slots hold is owned elsewhere). `nil` when the system has no slot
    /// left.
    public init?(destructor: (@convention(c) (UnsafeMutableRawPointer?) -> Void)? = nil) {
        var key = pthread_key_t()
        guard pthread_key_create(&key, destructor) == 0 else { return nil }
        self.key = key
    }

    /// Gives the slot back to the system; it must not be used afterwards. What threads' slots
    /// hold is not freed.
    public func delete() {
        pthread_key_delete(key)
    }

    /// What the calling thread's slot holds (`nil` at first).
    @inlinable public var pointer: UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Makes the calling thread's slot hold `pointer`.
    @inlinable public func hold(_ pointer: UnsafeMutableRawPointer?) {
        pthread_setspecific(key, pointer)
    }
}
