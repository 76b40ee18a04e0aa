/// An event loop runs Swift tasks that prefer it (`Task(executorPreference: loop)`) on its own
/// thread, between its events: a server's `async` handler (an HTTP answer that asks Redis)
/// then runs where the connection lives, and never waits for the cooperative pool, which an
/// application may keep busy with blocking work.
///
/// A job runs after the loop turn's events, as ``execute(_:)`` work does. Jobs handed to a loop
/// that has finished never run; their tasks stay suspended, as work on a stopped server should.
extension EventLoop: TaskExecutor {
    /// Runs `job` on the loop thread, soon.
    ///
    /// - Parameter job: The task's next part.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unownedJob = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        execute { unownedJob.runSynchronously(on: executor) }
    }
}
