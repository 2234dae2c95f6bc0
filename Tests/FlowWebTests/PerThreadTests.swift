@testable import FlowWeb
import Foundation
import Synchronization
import Testing

@Suite("Per-thread values")
struct PerThreadTests {
    final class Value {}

    @Test("each thread gets one value of its own, made on its first use")
    func oneValuePerThread() {
        let made = Atomic<Int>(0)
        let values = PerThread { () -> Value in
            made.add(1, ordering: .relaxed)
            return Value()
        }
        let seen = Mutex<[(first: ObjectIdentifier, second: ObjectIdentifier)]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread.detachNewThread {
                let first = ObjectIdentifier(values.current)
                let second = ObjectIdentifier(values.current)
                seen.withLock { $0.append((first, second)) }
                done.leave()
            }
        }
        done.wait()
        let pairs = seen.withLock { $0 }
        #expect(pairs.count == 4)
        #expect(pairs.allSatisfy { $0.first == $0.second })
        #expect(made.load(ordering: .relaxed) == 4)
    }
}
