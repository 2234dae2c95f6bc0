import Foundation
import Synchronization
import Testing

@testable import FlowCore
@testable import FlowWeb

@Suite("Decoded session cache")
struct DecodedSessionCacheTests {
    /// A decoded session of the test app, and a counter of the decodings asked for.
    final class Decoder: Sendable {
        let decoded: DecodedSessionCache.Decoded
        private let count = Atomic<Int>(0)
        var decodings: Int { count.load(ordering: .relaxed) }

        init() async throws {
            let app = try TestSite.webApp()
            let (tree, _) = try await Coordinator(app: app.flows, context: app.context).start()
            decoded = DecodedSessionCache.Decoded(tree: tree, extra: SessionExtra())
        }

        func decode() -> DecodedSessionCache.Decoded {
            count.add(1, ordering: .relaxed)
            return decoded
        }
    }

    @Test("a session is decoded once per version, then read from the cache")
    func decodesOncePerVersion() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        let first = cache.decoded("s", version: 1, decode: decoder.decode)
        _ = cache.decoded("s", version: 1, decode: decoder.decode)
        #expect(first.tree == decoder.decoded.tree)
        #expect(decoder.decodings == 1)
        _ = cache.decoded("s", version: 2, decode: decoder.decode)
        #expect(decoder.decodings == 2)
        #expect(cache.version(of: "s") == 2)
    }

    @Test("a stored tree is read without decoding; a new one is decoded once, then shared")
    func changingRequestsShare() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        cache.store("s", version: 1, decoder.decoded)
        for _ in 0..<3 { _ = cache.decoded("s", version: 1, decode: decoder.decode) }
        #expect(decoder.decodings == 0)
        _ = cache.decoded("t", version: 1, decode: decoder.decode)
        _ = cache.decoded("t", version: 1, decode: decoder.decode)
        #expect(decoder.decodings == 1, "decoded once, then shared")
    }

    @Test("a removed session is decoded again; without capacity nothing is kept")
    func removeAndNoCapacity() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        _ = cache.decoded("s", version: 1, decode: decoder.decode)
        cache.remove("s")
        #expect(cache.version(of: "s") == nil)
        _ = cache.decoded("s", version: 1, decode: decoder.decode)
        #expect(decoder.decodings == 2)
        let none = DecodedSessionCache(capacity: 0)
        _ = none.decoded("s", version: 1, decode: decoder.decode)
        _ = none.decoded("s", version: 1, decode: decoder.decode)
        #expect(decoder.decodings == 4)
    }

    @Test("past its capacity the cache drops the oldest sessions")
    func bounded() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 2)
        for id in ["a", "b", "c"] { _ = cache.decoded(id, version: 1, decode: decoder.decode) }
        #expect(cache.version(of: "a") == nil)
        #expect(cache.version(of: "c") == 1)
    }
}
