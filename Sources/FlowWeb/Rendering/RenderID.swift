import Synchronization

/// Render ids (`_r`, CONTRACT §3): 16 hex digits that tell one rendering of a page from every
/// other, so that a second submit of the same rendering is recognised as a duplicate.
///
/// An id is not a secret (it is written into the page), it only has to be unique: each is a
/// process-wide counter mixed with a random key by a bijection (SplitMix64's), so ids never repeat
/// within a process, and two processes (several instances on one store) collide only if their
/// random keys fall within a few billion of each other. A page costs an atomic increment, where
/// reading the system's random generator cost a system call per rendering.
enum RenderID {
    private static let key: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let counter = Atomic<UInt64>(0)

    /// A new render id.
    static func next() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return Hex.string(of: mixed(key &+ count &* 0x9E37_79B9_7F4A_7C15))
    }

    /// SplitMix64's finaliser: a bijection of 64-bit words that spreads neighbouring inputs apart.
    static func mixed(_ word: UInt64) -> UInt64 {
        var z = word
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
