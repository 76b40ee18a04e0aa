import Dispatch
import Synchronization

/// A mutable box that only its event loop's thread reads or writes.
///
/// `@unchecked Sendable` because the box itself may travel between threads (captured by closures
/// handed to ``EventLoop/execute(_:)``), while its `value` is touched only on the loop thread:
/// thread confinement, not a lock, makes it safe. Every user must respect that.
package final class LoopBound<Value>: @unchecked Sendable {
    /// The value; loop thread only.
    package var value: Value

    package init(_ value: Value) {
        self.value = value
    }
}

extension EventLoop {
    /// Runs `body` on the loop thread and waits for its result (directly when already on it).
    ///
    /// - Parameter body: The work; it must not wait on another thread that waits on this loop.
    /// - Returns: What `body` returned, or `nil` when the loop has already stopped (`body` did not run).
    @discardableResult
    package func runAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        if isInLoopThread { return body() }
        let result = LoopResult<T>()
        let isAccepted = enqueue {
            let value = body()
            result.value.withLock { $0 = value }
            result.done.signal()
        }
        guard isAccepted else { return nil }
        result.done.wait()
        return result.value.withLock { $0 }
    }
}

/// The hand-over slot of ``EventLoop/runAndWait(_:)``: written once on the loop thread before
/// `done.signal()`, read once after `done.wait()`. Plainly `Sendable`: the value is in a `Mutex`.
private final class LoopResult<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
}
