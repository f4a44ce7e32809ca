import NIOCore

/// Runs a connection's Swift task on the NIO event loop that owns its channel.
///
/// Hummingbird handles each connection in a task on the global concurrent pool: every request
/// then crosses threads twice — the event loop reads the bytes and wakes a pool thread, the
/// handler renders and signs there, and the answer goes back to the event loop to be written.
/// On a small machine that is twice the runnable threads of the cores (two event loops and two
/// pool threads on two cores), and a request whose thread the kernel has just preempted waits
/// a whole scheduler slice: the long tail of docs/performance.md (p95 about 4× p50 at
/// concurrency 4). With this executor as the connection task's preference
/// (`withTaskExecutorPreference`, SE-0417) the handler runs where its bytes arrive, the pool
/// stays idle, and no request waits for a thread the machine does not have.
///
/// The work done there is the mock's own (parsing, templating, XML signatures through
/// libxmlsec1), a millisecond at most; nothing in a handler blocks its thread (waits are
/// `Task.sleep` and futures awaited, which give the loop back).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
