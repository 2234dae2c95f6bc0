import ThreadLocal

/// Each thread's idle root encoder, kept for its next model with its spare children and cached
/// keyed containers: a page's model has the same types every time, so a kept encoder builds
/// neither encoders nor containers, only the values.
///
/// Per thread, in a thread-specific slot, not in a shared pool: taking from a pool every thread
/// uses means a lock and reference counts that the threads write in turn, and passing that
/// memory from core to core cost more than the encoders it saved. An encoding started while the
/// thread's encoder is in use (a model that encodes another model) gets a new one, which is
/// freed afterwards unless the slot is empty again.
enum IdleRootEncoder {
    /// The slot; its destructor frees a thread's encoder when the thread ends.
    private static let slot = ThreadSlot { pointer in
        guard let pointer else { return }
        Unmanaged<ValueEncoder>.fromOpaque(pointer).takeRetainedValue().detachChildren()
    }!

    /// The calling thread's idle root encoder, which is no longer idle; `nil` when it has none.
    static func take() -> ValueEncoder? {
        guard let pointer = slot.pointer else { return nil }
        slot.hold(nil)
        return Unmanaged<ValueEncoder>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Empties `root` and keeps it as the calling thread's idle encoder, or, when the thread
    /// has one already, breaks its cycles so that it is freed (children reference their parent,
    /// which holds its spare child, its nested containers and its cached keyed container).
    static func putBack(_ root: ValueEncoder) {
        root.reset()
        if slot.pointer == nil {
            slot.hold(Unmanaged.passRetained(root).toOpaque())
        } else {
            root.detachChildren()
        }
    }
}
