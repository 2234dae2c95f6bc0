import ThreadLocal

/// Each thread's idle output memory, kept for the next render: a render writes into memory it
/// takes from here and copies the result out at the end, so rendering allocates only its
/// result, not also a buffer to write it in.
///
/// Per thread, in a thread-specific slot, for the same reason as ``IdleRootEncoder``. A render
/// started while the thread's memory is in use allocates its own; memory larger than
/// ``largest`` is freed instead of kept.
enum IdleOutputMemory {
    /// Memory larger than this (a huge page once) is not kept.
    static let largest = 256 * 1024

    /// The block header in front of the bytes: the capacity.
    private static let header = MemoryLayout<Int>.stride

    /// The slot, holding the header's address; its destructor frees a thread's memory when the
    /// thread ends.
    private static let slot = ThreadSlot { pointer in pointer?.deallocate() }!

    /// Memory for at least `capacity` bytes and its actual capacity: the thread's idle memory
    /// when it is large enough, new memory otherwise.
    static func take(atLeast capacity: Int) -> (UnsafeMutablePointer<UInt8>, Int) {
        if let block = slot.pointer {
            slot.hold(nil)
            let kept = block.load(as: Int.self)
            if kept >= capacity { return ((block + header).assumingMemoryBound(to: UInt8.self), kept) }
            block.deallocate()
        }
        return (allocate(capacity), capacity)
    }

    /// Memory of `capacity` bytes whose header is in front, to fill and hand back with
    /// ``putBack(_:)``; what ``OutputBuffer`` grows into.
    static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: header + capacity, alignment: MemoryLayout<Int>.alignment)
        block.storeBytes(of: capacity, as: Int.self)
        return (block + header).assumingMemoryBound(to: UInt8.self)
    }

    /// Keeps `memory` (from ``take(atLeast:)`` or ``allocate(_:)``) as the thread's idle
    /// memory, or frees it when the thread has some already or it is too large.
    static func putBack(_ memory: UnsafeMutablePointer<UInt8>) {
        let block = UnsafeMutableRawPointer(memory) - header
        if slot.pointer == nil, block.load(as: Int.self) <= largest {
            slot.hold(block)
        } else {
            block.deallocate()
        }
    }

    /// Frees `memory` (from ``take(atLeast:)`` or ``allocate(_:)``) without keeping it.
    static func free(_ memory: UnsafeMutablePointer<UInt8>) {
        (UnsafeMutableRawPointer(memory) - header).deallocate()
    }
}
