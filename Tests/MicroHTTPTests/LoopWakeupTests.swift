import Testing

@testable import MicroHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether `descriptor` has bytes to read now.
private func isReadable(_ descriptor: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1
}

@Suite("the daemon loop's wakeup")
struct LoopWakeupTests {
    @Test("signals before a drain write one byte; the drain empties the pipe and lowers the flag")
    func signalAndDrain() throws {
        let wakeup = try #require(LoopWakeup())
        wakeup.signal()
        wakeup.signal()
        #expect(wakeup.isPending)
        #expect(isReadable(wakeup.descriptor))
        wakeup.drain()
        #expect(!wakeup.isPending)
        #expect(!isReadable(wakeup.descriptor))
    }

    @Test("a drain between a signal's flag and its write keeps the flag up, so the byte that follows is read")
    func drainBetweenFlagAndWrite() throws {
        let wakeup = try #require(LoopWakeup())
        // A signal raises the flag; its byte is taken out here and written again below, as if the
        // signalling thread had not written it yet when the loop drained.
        wakeup.signal()
        var byte: UInt8 = 0
        #expect(read(wakeup.descriptor, &byte, 1) == 1)
        wakeup.drain()
        #expect(wakeup.isPending, "nothing was read, so the signal is still to be handled")
        #expect(write(wakeup.writeEnd, &byte, 1) == 1)
        // The loop drains while the flag is up: the byte in the pipe is never left behind.
        #expect(isReadable(wakeup.descriptor) && wakeup.isPending)
        wakeup.drain()
        #expect(!wakeup.isPending)
        #expect(!isReadable(wakeup.descriptor))
    }
}
