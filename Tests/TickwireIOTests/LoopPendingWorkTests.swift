import Dispatch
import Synchronization
import Testing
@_spi(LoopThread) import TickwireIO

/// The loop's pending-work queue: a job asked for continues in the next turn without socket
/// readiness, once per request, with other work served between its steps.
@Suite("Loop pending work")
struct LoopPendingWorkTests {
    /// Runs `steps` steps, one per turn, recording each step and what ran between them.
    final class SteppedJob: LoopPendingWork {
        let loop: EventLoop
        var stepsLeft: Int
        var log: [String] = []
        let finished = DispatchSemaphore(value: 0)

        init(loop: EventLoop, steps: Int) {
            self.loop = loop
            stepsLeft = steps
        }

        func continuePendingWork() {
            log.append("step")
            // Work queued now runs in the next turn, before this job's next step.
            let box = LoopBoundBox(self)
            loop.execute { box.job.log.append("other") }
            stepsLeft -= 1
            if stepsLeft > 0 { loop.requestPendingWork(self) } else { finished.signal() }
        }
    }

    @Test("pending work continues turn after turn without readiness, and work queued meanwhile runs between its steps")
    func stepsInterleave() throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let job = loop.runAndWait { () -> LoopBoundBox in
            let job = SteppedJob(loop: loop, steps: 50)
            loop.requestPendingWork(job)
            return LoopBoundBox(job)
        }
        let box = try #require(job)
        #expect(box.job.finished.wait(timeout: .now() + 5) == .success, "50 steps should finish without any socket event")
        let log = loop.runAndWait { box.job.log } ?? []
        #expect(log.filter { $0 == "step" }.count == 50, "each request runs the job once")
        let expected = Array(repeating: ["step", "other"], count: 50).flatMap { $0 }
        #expect(log == expected, "one step per turn, with the work queued meanwhile served before the next (log \(log.prefix(12)))")
    }
}

/// Carries a loop-thread-only job across `runAndWait`; every use of `job` is on the loop thread.
final class LoopBoundBox: @unchecked Sendable {
    // Thread safety: `job` is created, mutated and read on the loop thread only; other threads
    // only wait on its semaphore, which is thread-safe.
    let job: LoopPendingWorkTests.SteppedJob
    init(_ job: LoopPendingWorkTests.SteppedJob) { self.job = job }
}
