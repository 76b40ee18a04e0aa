import Testing
import TickwireIO

@Suite("Event loop as a task executor")
struct EventLoopTaskExecutorTests {
    @Test("a task that prefers the loop runs on the loop thread, before and after it suspends")
    func tasksRunOnTheLoopThread() async throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let (before, after) = await Task(executorPreference: loop) { () -> (Bool, Bool) in
            let before = loop.isInLoopThread
            try? await Task.sleep(for: .milliseconds(5))  // A suspension; its cancellation does not matter here.
            await Task.yield()
            return (before, loop.isInLoopThread)
        }.value
        #expect(before, "the task's first part must run on the loop thread")
        #expect(after, "the task must come back to the loop thread after it suspends")
    }
}
