import Dispatch

/// A mutable box that only its event loop's thread reads or writes.
///
/// `@unchecked Sendable` because the box itself may travel between threads (captured by closures
/// handed to ``EventLoop/execute(_:)``), while its `value` is touched only on the loop thread:
/// thread confinement, not a lock, makes it safe. Every user must respect that.
final class LoopBound<Value>: @unchecked Sendable {
    /// The value; loop thread only.
    var value: Value

    init(_ value: Value) {
        self.value = value
    }
}

extension EventLoop {
    /// Runs `body` on the loop thread and waits for its result (directly when already on it).
    ///
    /// - Parameter body: The work; it must not wait on another thread that waits on this loop.
    /// - Returns: What `body` returned, or `nil` when the loop has already stopped (`body` did not run).
    @discardableResult
    func runAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        if isInLoopThread { return body() }
        let result = LoopResult<T>()
        let isAccepted = enqueue {
            result.value = body()
            result.done.signal()
        }
        guard isAccepted else { return nil }
        result.done.wait()
        // The semaphore orders the write in the closure before this read.
        return result.value
    }
}

/// The hand-over slot of ``EventLoop/runAndWait(_:)``.
///
/// `@unchecked Sendable`: written once on the loop thread before `done.signal()`, read once after
/// `done.wait()`; the semaphore orders the two.
private final class LoopResult<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
}
