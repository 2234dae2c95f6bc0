import Foundation
import Synchronization
import Testing

@testable import FlowWeb

@Suite("Request batches")
struct RequestBatchesTests {
    @Test("a thread hands over its batch when full; draining takes every thread's rest")
    func batches() {
        let batches = RequestBatches(size: 4)
        let handed = Mutex<[[Int]]>([])
        let record: @Sendable ([RequestBatches.Observation]) -> Void = { observations in
            handed.withLock { $0.append(observations.map(\.status)) }
        }
        for status in 1...5 {
            if let full = batches.add(.init(route: "page", status: status, duration: .zero)) { record(full) }
        }
        #expect(handed.withLock { $0 } == [[1, 2, 3, 4]])
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for status in 10...12 {
                if let full = batches.add(.init(route: "step", status: status, duration: .zero)) { record(full) }
            }
            done.signal()
        }
        done.wait()
        #expect(handed.withLock { $0 }.count == 1, "the other thread's three stay in its batch")
        batches.drain(record)
        #expect(handed.withLock { $0 }.dropFirst().flatMap { $0 }.sorted() == [5, 10, 11, 12])
        batches.drain(record)
        #expect(handed.withLock { $0 }.count == 3, "nothing is left to hand over")
    }
}
