import Foundation
import Testing

@testable import FlowWeb

@Suite("Session version cache")
struct SessionVersionCacheTests {
    /// Runs `body` on a new thread (the cache keeps a table per thread) and waits for it.
    private func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        done.wait()
    }

    @Test("a value is made once per session version on a thread; a new version is made again")
    func oncePerVersion() {
        let cache = SessionVersionCache<String>(capacity: 8)
        var made = 0
        func value(_ id: String, _ version: Int) -> String {
            cache.value(id, version: version) {
                made += 1
                return "\(id)@\(version)"
            }
        }
        #expect(value("a", 1) == "a@1" && value("a", 1) == "a@1" && made == 1)
        #expect(value("b", 1) == "b@1" && made == 2)
        #expect(value("a", 2) == "a@2" && made == 3)
        #expect(value("a", 2) == "a@2" && made == 3)
        // An older version (a store that went back) is not served from the newer entry.
        #expect(value("a", 1) == "a@1" && made == 4)
    }

    @Test("each thread makes its own value")
    func perThread() {
        let cache = SessionVersionCache<Int>(capacity: 8)
        #expect(cache.value("a", version: 1) { 1 } == 1)
        onAnotherThread {
            // This thread has not kept the value: it makes its own.
            #expect(cache.value("a", version: 1) { 2 } == 2)
            #expect(cache.value("a", version: 1) { 3 } == 2)
        }
        #expect(cache.value("a", version: 1) { 4 } == 1)
    }

    @Test("a full table starts over; without capacity nothing is kept; a failed make keeps nothing")
    func bounded() throws {
        let cache = SessionVersionCache<Int>(capacity: 2)
        _ = cache.value("a", version: 1) { 1 }
        _ = cache.value("b", version: 1) { 2 }
        #expect(cache.value("a", version: 1) { 9 } == 1)
        _ = cache.value("c", version: 1) { 3 }  // full: starts over with c
        #expect(cache.value("a", version: 1) { 10 } == 10)
        let none = SessionVersionCache<Int>(capacity: 0)
        _ = none.value("a", version: 1) { 1 }
        #expect(none.value("a", version: 1) { 2 } == 2)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try cache.value("d", version: 1) { () throws(Failure) -> Int in throw Failure() }
        }
        #expect(cache.value("d", version: 1) { 4 } == 4)
    }
}
