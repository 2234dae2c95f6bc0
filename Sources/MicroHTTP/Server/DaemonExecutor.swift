import Dispatch
import Synchronization

/// A daemon's thread as a task executor: a request's task prefers the thread that received it,
/// so when it resumes from a wait (a database's answer, a lock) it runs there, between two turns
/// of the daemon's loop, and hands its answer to the connection on the thread that sends it.
///
/// Without it the task resumed on another thread (the database client's, or the cooperative
/// pool's), which then woke the daemon's thread to send the answer: two threads woken for every
/// request that waited. Now the one that completes the wait wakes the daemon's thread (once for
/// any number of jobs queued while it runs), and the answer is queued where it is sent.
///
/// Jobs are run by ``DaemonLoop`` between its turns; once the loop has ended they run on a
/// dispatch queue, so no task waits forever for a loop that stopped.
final class DaemonExecutor: TaskExecutor, Sendable {
    private struct Queue: ~Copyable {
        var jobs: [UnownedJob] = []
        /// Whether the loop still runs jobs.
        var isOpen = true
    }

    private let queue = Mutex(Queue())
    private let wakeup: LoopWakeup

    /// An executor whose jobs wake the loop that `wakeup` wakes.
    init(wakeup: LoopWakeup) {
        self.wakeup = wakeup
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = queue.withLock { queue in
            guard queue.isOpen else { return false }
            queue.jobs.append(job)
            return true
        }
        if queued { wakeup.signal() } else { runElsewhere(job) }
    }

    /// Runs the jobs queued so far, on the calling thread: the loop's, between its turns. Jobs
    /// they queue run at the next call (their wakeup keeps the loop from waiting meanwhile).
    /// `buffer`, empty, is the loop's to reuse from call to call.
    func runQueuedJobs(using buffer: inout [UnownedJob]) {
        queue.withLock { queue in swap(&queue.jobs, &buffer) }
        for job in buffer { job.runSynchronously(on: asUnownedTaskExecutor()) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Stops taking jobs for the loop, which has ended: the jobs queued and any later ones run on
    /// a dispatch queue.
    func close() {
        let left = queue.withLock { queue in
            queue.isOpen = false
            defer { queue.jobs = [] }
            return queue.jobs
        }
        for job in left { runElsewhere(job) }
    }

    private func runElsewhere(_ job: UnownedJob) {
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
