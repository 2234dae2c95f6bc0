/// Render ids (`_r`, Docs/CONTRACT.md §3): 16 hex digits that tell one rendering of a page from every
/// other, so that a second submit of the same rendering is recognised as a duplicate.
///
/// An id is not a secret (it is written into the page), it only has to be unique: each is a
/// thread's counter plus the thread's random key, mixed by a bijection (SplitMix64's). So ids
/// never repeat within a thread, and two threads (or two instances on one store) repeat each
/// other's only if their random keys fall within a few billion steps of each other, about as
/// likely as two random 64-bit ids colliding. A page costs an increment: no system call, no
/// shared counter (rule 4 of FlowWeb.docc/Performance.md).
enum RenderID {
    /// One thread's sequence.
    private final class Sequence {
        let key: UInt64 = {
            var generator = SystemRandomNumberGenerator()
            return generator.next()
        }()
        var count: UInt64 = 0
    }

    private static let sequences = PerThread { Sequence() }

    /// A new render id.
    static func next() -> String {
        let sequence = sequences.current
        sequence.count &+= 1
        return Hex.string(of: mixed(sequence.key &+ sequence.count &* 0x9E37_79B9_7F4A_7C15))
    }

    /// SplitMix64's finaliser: a bijection of 64-bit words that spreads neighbouring inputs apart.
    static func mixed(_ word: UInt64) -> UInt64 {
        var z = word
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
