import Foundation
import Synchronization
import Testing

@testable import FlowWeb

@Suite("Per-thread values")
struct PerThreadTests {
    final class Value {}

    @Test("each thread gets one value of its own, made on its first use")
    func oneValuePerThread() {
        final class Counter: Sendable { let made = Atomic<Int>(0) }
        final class Values: Sendable {
            let perThread: PerThread<Value>
            init(_ counter: Counter) {
                perThread = PerThread { () -> Value in
                    counter.made.add(1, ordering: .relaxed)
                    return Value()
                }
            }
        }
        let counter = Counter()
        let values = Values(counter)
        let seen = Mutex<[(first: ObjectIdentifier, second: ObjectIdentifier)]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread.detachNewThread {
                let first = ObjectIdentifier(values.perThread.current)
                let second = ObjectIdentifier(values.perThread.current)
                seen.withLock { $0.append((first, second)) }
                done.leave()
            }
        }
        done.wait()
        let pairs = seen.withLock { $0 }
        #expect(pairs.count == 4)
        #expect(pairs.allSatisfy { $0.first == $0.second })
        #expect(counter.made.load(ordering: .relaxed) == 4)
    }
}
