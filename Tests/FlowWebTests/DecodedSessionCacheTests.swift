import FlowStore
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

        /// The session `id` at `version`, as committed.
        func session(_ id: String, version: Int) -> LoadedSession {
            LoadedSession(
                record: DecodedSessionCacheTests.record(id, version: version), tree: decoded.tree, extra: decoded.extra)
        }
    }

    /// A stored record of session `id` at `version` (its bytes are not read: decoding is faked).
    static func record(_ id: String, version: Int) -> SessionRecord {
        SessionRecord(
            id: id, version: version, tree: [], csrfToken: "t", lastSeq: version, createdAt: 0, lastUsedAt: 0,
            expiresAt: 1)
    }

    @Test("a session is decoded once per version, then read from the cache")
    func decodesOncePerVersion() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        let first = cache.decoded(Self.record("s", version: 1), decode: decoder.decode)
        _ = cache.decoded(Self.record("s", version: 1), decode: decoder.decode)
        #expect(first.tree == decoder.decoded.tree)
        #expect(decoder.decodings == 1)
        _ = cache.decoded(Self.record("s", version: 2), decode: decoder.decode)
        #expect(decoder.decodings == 2)
        #expect(cache.latest("s")?.record.version == 2)
    }

    @Test("a stored tree is read without decoding; a new one is decoded once, then shared")
    func changingRequestsShare() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        cache.store(decoder.session("s", version: 1))
        for _ in 0..<3 { _ = cache.decoded(Self.record("s", version: 1), decode: decoder.decode) }
        #expect(decoder.decodings == 0)
        _ = cache.decoded(Self.record("t", version: 1), decode: decoder.decode)
        _ = cache.decoded(Self.record("t", version: 1), decode: decoder.decode)
        #expect(decoder.decodings == 1, "decoded once, then shared")
    }

    @Test("a removed session is decoded again; without capacity nothing is kept")
    func removeAndNoCapacity() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        _ = cache.decoded(Self.record("s", version: 1), decode: decoder.decode)
        cache.remove("s")
        #expect(cache.latest("s")?.record.version == nil)
        _ = cache.decoded(Self.record("s", version: 1), decode: decoder.decode)
        #expect(decoder.decodings == 2)
        let none = DecodedSessionCache(capacity: 0)
        _ = none.decoded(Self.record("s", version: 1), decode: decoder.decode)
        _ = none.decoded(Self.record("s", version: 1), decode: decoder.decode)
        #expect(decoder.decodings == 4)
    }

    @Test("past its capacity the cache drops the oldest sessions")
    func bounded() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 2)
        for id in ["a", "b", "c"] { _ = cache.decoded(Self.record(id, version: 1), decode: decoder.decode) }
        #expect(cache.latest("a")?.record.version == nil)
        #expect(cache.latest("c")?.record.version == 1)
    }

    @Test(
        "the latest copy is the newest read or committed: a read does not replace a newer commit, a commit replaces all"
    )
    func latestCopy() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        #expect(cache.latest("s") == nil)
        cache.store(decoder.session("s", version: 3))
        _ = cache.decoded(Self.record("s", version: 2), decode: decoder.decode)
        #expect(cache.latest("s")?.record.version == 3, "a read that lost the race to a commit")
        _ = cache.decoded(Self.record("s", version: 4), decode: decoder.decode)
        #expect(cache.latest("s")?.record.version == 4)
        cache.store(decoder.session("s", version: 2))
        #expect(cache.latest("s")?.record.version == 2, "a commit is the stored version, whatever came before")
        #expect(cache.latest("s")?.tree == decoder.decoded.tree)
    }

    @Test("a read older than a kept copy answers the kept copy; a read of the kept version is not decoded again")
    func freshestCopy() async throws {
        let decoder = try await Decoder()
        let cache = DecodedSessionCache(capacity: 8)
        let storedDecoder = StoredSessionDecoder(registry: try TestSite.webApp().flows.registry)
        cache.store(decoder.session("s", version: 5))
        let raced = try cache.freshest(from: Self.record("s", version: 4), decoder: storedDecoder)
        #expect(raced.record.version == 5, "the read raced a commit of this instance: the commit is fresher")
        let same = try cache.freshest(from: Self.record("s", version: 5), decoder: storedDecoder)
        #expect(same.record == Self.record("s", version: 5) && same.tree == decoder.decoded.tree)
    }
}
