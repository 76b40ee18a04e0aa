import CommandLineSupport
import Synchronization
import Tickwire

/// Log lines held back while the terminal game owns the screen, and written to standard error
/// once it gives the screen back.
///
/// The interactive arena draws on the alternate screen, in raw mode, redrawing only the rows
/// that changed: a log line written meanwhile would land in the middle of the picture, stay
/// there until its rows change, and vanish with the alternate screen. So `arena join` logs
/// through ``sink(label:minimumLevel:)`` while it plays, and calls ``release()`` when the screen
/// is restored; the newest ``capacity`` lines are kept, and the release says how many older
/// ones were let go.
package final class HeldLogLines: Sendable {
    /// The most lines held by default.
    package static let defaultCapacity = 200

    private struct State {
        var isHolding = true
        var lines: [String] = []
        var dropped = 0
    }

    /// The most lines held; older ones are let go (and counted) to make room.
    package let capacity: Int
    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void

    /// Creates a holder that holds until ``release()``.
    ///
    /// - Parameters:
    ///   - capacity: The most lines held. Default ``defaultCapacity``.
    ///   - write: Where lines go once released: standard error by default (tests pass their own).
    package init(capacity: Int = HeldLogLines.defaultCapacity, write: @escaping @Sendable (String) -> Void = StandardError.write) {
        self.capacity = max(capacity, 1)
        self.write = write
    }

    /// A sink whose records become lines like ``LogSink/standardError(label:minimumLevel:)``'s,
    /// held until ``release()`` and written straight on after it.
    ///
    /// - Parameters:
    ///   - label: Names the program in each line.
    ///   - minimumLevel: The least severe level kept.
    /// - Returns: The sink.
    package func sink(label: String, minimumLevel: LogLevel) -> LogSink {
        LogSink(minimumLevel: minimumLevel) { [self] record in self.take("\(label): \(record)\n") }
    }

    private func take(_ line: String) {
        let isHeld = state.withLock { state -> Bool in
            guard state.isHolding else { return false }
            if state.lines.count >= capacity {
                state.lines.removeFirst()
                state.dropped += 1
            }
            state.lines.append(line)
            return true
        }
        if !isHeld { write(line) }
    }

    /// Stops holding: writes how many lines were let go (if any), then the held lines in order;
    /// every later line is written at once. Calling it again does nothing more.
    package func release() {
        let (lines, dropped) = state.withLock { state -> ([String], Int) in
            defer {
                state.isHolding = false
                state.lines = []
                state.dropped = 0
            }
            return (state.lines, state.dropped)
        }
        if dropped > 0 { write("(\(dropped) earlier log lines were let go while the game held the screen)\n") }
        for line in lines { write(line) }
    }
}
