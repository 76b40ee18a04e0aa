import CommandLineSupport
import Dispatch
import Synchronization

/// Writes ``ArenaStateFile``s off the tick thread: ``submit(_:)`` hands over the newest state
/// and returns at once, and a background queue encodes and writes it (the `fsync` alone takes
/// 1 to 20 ms on a busy disk, more than half a 30 Hz tick). While a write is under way, a newer
/// state replaces any still waiting, so at most one waits and the newest is always written.
///
/// A failure is reported on standard error once, until a write succeeds again.
///
/// Thread-safe: the mutable state lives in the `slot` `Mutex`; the path is a constant
/// and the queue is thread-safe.
final class ArenaStateSaver: Sendable {
    private struct Slot {
        var waiting: ArenaStateFile?
        var isWriting = false
        var lastFailure: String?
    }

    /// The file written.
    let path: String
    private let slot = Mutex(Slot())
    private let queue = DispatchQueue(label: "arena.state-saver")

    init(path: String) {
        self.path = path
    }

    /// Queues `file` to be written, replacing any file still waiting; returns at once.
    func submit(_ file: ArenaStateFile) {
        let startsWriting = slot.withLock { slot in
            slot.waiting = file
            defer { slot.isWriting = true }
            return !slot.isWriting
        }
        if startsWriting { queue.async { self.drain() } }
    }

    /// Waits until every submitted file has been written (or has failed).
    func flush() {
        queue.sync {}
    }

    /// Writes `file` now, on the calling thread, after any submitted write.
    ///
    /// - Throws: ``ArenaStateError`` when it cannot be written (also reported on standard error).
    func write(_ file: ArenaStateFile) throws(ArenaStateError) {
        flush()
        do {
            try file.write(to: path)
            slot.withLock { $0.lastFailure = nil }
        } catch {
            report(error)
            throw error
        }
    }

    private func drain() {
        while let file = slot.withLock({ slot -> ArenaStateFile? in
            let next = slot.waiting
            slot.waiting = nil
            if next == nil { slot.isWriting = false }
            return next
        }) {
            do {
                try file.write(to: path)
                slot.withLock { $0.lastFailure = nil }
            } catch {
                report(error)
            }
        }
    }

    private func report(_ error: ArenaStateError) {
        let isNew = slot.withLock { slot in
            defer { slot.lastFailure = error.description }
            return slot.lastFailure != error.description
        }
        if isNew { StandardError.write("arena: cannot save the state: \(error)\n") }
    }
}
