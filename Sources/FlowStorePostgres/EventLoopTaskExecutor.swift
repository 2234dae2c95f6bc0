import NIOCore

/// A NIO event loop as a task executor: jobs enqueued here run on the loop's thread, in turn with
/// its I/O, so a task that prefers it resumes on the thread that completed what it waited for.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
