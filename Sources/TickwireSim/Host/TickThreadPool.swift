#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The worker threads a ``Host`` ticks its rooms on, one pass at a time (fork-join).
///
/// ``run(_:)`` hands job *i* (for *i* ≥ 1) to worker *i − 1*, runs job 0 itself on the calling
/// thread, and returns once every job has finished; between passes the workers sleep on a
/// condition variable. That barrier is what lets the host do everything else (handshakes,
/// room placement, idle rooms, state export, statistics) on the calling thread without a lock
/// on any room: while no pass runs, no worker touches a room, and each pass's start and end
/// order every worker's reads and writes after and before the calling thread's.
///
/// Built on a pthread mutex and condition variables, which ThreadSanitizer understands.
/// Workers that could not be created (``workerCount`` below what was asked) leave their jobs
/// to the calling thread.
final class TickThreadPool: @unchecked Sendable {
    // Thread safety: `jobs`, `remaining` and `isStopping` are read and written only with
    // `mutex` held. `threads` is touched only by the owning thread (`init`, `stop`), which
    // also is the only thread that calls `run(_:)`. The pthread objects are thread-safe.

    /// One worker's share of a pass.
    struct Job: @unchecked Sendable {
        // Unchecked: the closure captures rooms (not Sendable) that only the worker running it
        // touches until `run(_:)` returns; the calling thread waits in `run(_:)` meanwhile.
        let body: () -> Void
    }

    /// What a worker thread starts with.
    private final class WorkerStart {
        let pool: TickThreadPool
        let index: Int

        init(pool: TickThreadPool, index: Int) {
            self.pool = pool
            self.index = index
        }
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// One condition per worker: signalled when its job is set or the pool stops.
    private let workReady: UnsafeMutablePointer<pthread_cond_t>
    /// Signalled when the last job of a pass has finished.
    private let passDone: UnsafeMutablePointer<pthread_cond_t>
    private let capacity: Int
    private var jobs: [Job?]
    private var remaining = 0
    private var isStopping = false
    private var threads: [pthread_t] = []

    /// Starts `workers` threads (fewer when `pthread_create` fails).
    ///
    /// - Parameter workers: Threads besides the calling one.
    init(workers: Int) {
        capacity = max(0, workers)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        workReady = .allocate(capacity: max(1, capacity))
        for index in 0..<capacity { pthread_cond_init(workReady + index, nil) }
        passDone = .allocate(capacity: 1)
        pthread_cond_init(passDone, nil)
        jobs = Array(repeating: nil, count: capacity)
        for index in 0..<capacity {
            guard let thread = startWorker(index: index) else { break }
            threads.append(thread)
        }
    }

    deinit {
        for index in 0..<capacity { pthread_cond_destroy(workReady + index) }
        pthread_cond_destroy(passDone)
        pthread_mutex_destroy(mutex)
        workReady.deallocate()
        passDone.deallocate()
        mutex.deallocate()
    }

    /// The worker threads running (besides the calling thread).
    var workerCount: Int { threads.count }

    private func startWorker(index: Int) -> pthread_t? {
        let start = Unmanaged.passRetained(WorkerStart(pool: self, index: index))
        #if canImport(Glibc)
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let start = Unmanaged<WorkerStart>.fromOpaque(argument).takeRetainedValue()
                start.pool.work(index: start.index)
                return nil
            }, start.toOpaque())
        #else
        var created: pthread_t?
        let status = pthread_create(
            &created, nil,
            { argument in
                let start = Unmanaged<WorkerStart>.fromOpaque(argument).takeRetainedValue()
                start.pool.work(index: start.index)
                return nil
            }, start.toOpaque())
        guard let thread = created else {
            start.release()
            return nil
        }
        #endif
        guard status == 0 else {
            start.release()
            return nil
        }
        return thread
    }

    /// A worker's life: wait for a job, run it, report it done; until the pool stops.
    private func work(index: Int) {
        pthread_mutex_lock(mutex)
        while true {
            if let job = jobs[index] {
                jobs[index] = nil
                pthread_mutex_unlock(mutex)
                job.body()
                pthread_mutex_lock(mutex)
                remaining -= 1
                if remaining == 0 { pthread_cond_signal(passDone) }
            } else if isStopping {
                break
            } else {
                pthread_cond_wait(workReady + index, mutex)
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Runs one pass: job 0 on the calling thread, job *i* on worker *i − 1* (on the calling
    /// thread too when that worker does not run), and returns when all have finished.
    ///
    /// - Parameter passJobs: One entry per thread; `nil` leaves that thread asleep.
    func run(_ passJobs: [(() -> Void)?]) {
        var inline: [() -> Void] = []
        pthread_mutex_lock(mutex)
        var dispatched = 0
        for (index, body) in passJobs.enumerated() {
            guard let body else { continue }
            let worker = index - 1
            if worker >= 0 && worker < threads.count && !isStopping {
                jobs[worker] = Job(body: body)
                dispatched += 1
                pthread_cond_signal(workReady + worker)
            } else {
                inline.append(body)
            }
        }
        remaining += dispatched
        pthread_mutex_unlock(mutex)
        for body in inline { body() }
        pthread_mutex_lock(mutex)
        while remaining > 0 { pthread_cond_wait(passDone, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Stops the workers after their current job and waits for them (`pthread_join`). Later
    /// passes run every job on the calling thread.
    func stop() {
        pthread_mutex_lock(mutex)
        isStopping = true
        for index in 0..<threads.count { pthread_cond_signal(workReady + index) }
        pthread_mutex_unlock(mutex)
        for thread in threads { pthread_join(thread, nil) }
        threads.removeAll()
    }
}
