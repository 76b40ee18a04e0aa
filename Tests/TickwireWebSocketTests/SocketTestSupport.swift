import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let ECONNREFUSED_CODE: Int32 = ECONNREFUSED

/// A one-way signal between threads with a bounded wait, so tests never hang.
final class TestSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func signal() { semaphore.signal() }

    /// Waits up to `seconds`; `false` on timeout.
    func wait(seconds: Double) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

/// A `Mutex`-protected value that closures on other threads can share (a class, so it can be captured).
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }

    var value: Value { mutex.withLock { $0 } }
}

/// Collects values pushed from other threads (event handlers) and lets a test wait for them, with a timeout.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    private let arrivals = DispatchSemaphore(value: 0)

    func push(_ value: Value) {
        values.withLock { $0.append(value) }
        arrivals.signal()
    }

    var all: [Value] { values.withLock { $0 } }

    /// Waits until `predicate` holds for the values so far; `false` after `seconds`.
    func wait(seconds: Double, until predicate: ([Value]) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while true {
            if predicate(all) { return true }
            if arrivals.wait(timeout: deadline) == .timedOut { return predicate(all) }
        }
    }
}
