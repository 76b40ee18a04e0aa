import Dispatch
import Synchronization

/// A mutable box that only its event loop's thread reads or writes.
///
/// `@unchecked Sendable` because the box itself may travel between threads (captured by closures
/// handed to ``EventLoop/execute(_:)``), while its `value` is touched only on the loop thread:
/// thread confinement, not a lock, makes it safe. Every user must respect that.
///
/// SPI (`@_spi(LoopThread) import TickwireIO`), not API: public only so that ``value`` can be
/// inlinable. A WebSocket send on the loop thread reads its connection's box; a stored property
/// read from another module is checked for exclusivity at run time, and `package` declarations
/// do not inline across modules, so the accessors are public, inlinable and unchecked.
@_spi(LoopThread)
public final class LoopBound<Value>: @unchecked Sendable {
    /// The value's storage; loop thread only. Unchecked exclusivity: one thread, no overlapping access.
    @usableFromInline @exclusivity(unchecked) var storage: Value

    /// The value; loop thread only.
    @inlinable public var value: Value {
        get { storage }
        set { storage = newValue }
    }

    /// Creates a box holding `value`.
    ///
    /// - Parameter value: The first value.
    public init(_ value: Value) {
        storage = value
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
