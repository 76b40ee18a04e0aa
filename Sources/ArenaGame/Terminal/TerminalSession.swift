#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal as the interactive arena uses it: raw mode, the alternate screen and a
/// hidden cursor while the game runs, and the terminal exactly restored afterwards, on
/// quit, on an error, on SIGTERM, SIGINT or SIGHUP.
///
/// Only one session can be open at a time (the terminal is one); ``open()`` fails when
/// standard input or output is not a terminal, with a message for the person at it.
package final class TerminalSession {
    /// Why a terminal session could not start.
    package struct OpenError: Error, CustomStringConvertible {
        /// Words for the person at the terminal.
        package let description: String
    }

    private static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J"

    private var isOpen = true

    private init() {}

    /// Puts the terminal into raw mode on the alternate screen with the cursor hidden.
    ///
    /// - Returns: The open session; call ``close()`` (or let it deinitialize) to restore.
    /// - Throws: ``OpenError`` when standard input or output is not a terminal.
    package static func open() throws(OpenError) -> TerminalSession {
        guard isatty(STDIN_FILENO) == 1 else {
            throw OpenError(
                description:
                    "standard input is not a terminal: run the arena in a terminal, or use `arena join … --script … --dump` for headless play"
            )
        }
        guard isatty(STDOUT_FILENO) == 1 else {
            throw OpenError(description: "standard output is not a terminal: use `--dump` to print frames as text")
        }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw OpenError(description: "cannot read the terminal's settings (tcgetattr failed, errno \(errno))")
        }
        savedTerminalState = original
        hasSavedTerminalState = true
        var raw = original
        cfmakeraw(&raw)
        // Keep output post-processing so "\n" still returns the carriage.
        raw.c_oflag |= tcflag_t(OPOST)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else {
            throw OpenError(description: "cannot switch the terminal to raw mode (tcsetattr failed, errno \(errno))")
        }
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber, restoreTerminalAndExit)
        }
        writeToTerminal(enter)
        return TerminalSession()
    }

    deinit { close() }

    /// Restores the terminal: leaves the alternate screen, shows the cursor, resets colours
    /// and puts back the settings saved by ``open()``. Safe to call more than once.
    package func close() {
        guard isOpen else { return }
        isOpen = false
        restoreTerminal()
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber, SIG_DFL)
        }
    }

    /// Writes bytes to the terminal, retrying short writes.
    ///
    /// - Parameter text: What to write (usually from ``ScreenRenderer``).
    package func write(_ text: String) {
        writeToTerminal(text)
    }

    /// The terminal's size in columns and rows (`ioctl(TIOCGWINSZ)`), or 80×24 if unknown.
    package var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Reads what the keyboard sent, waiting at most `timeoutMilliseconds` (`poll` then `read`).
    ///
    /// - Parameter timeoutMilliseconds: The longest wait; 0 returns at once.
    /// - Returns: The bytes read; empty when nothing came in time.
    package func readInput(timeoutMilliseconds: Int32) -> [UInt8] {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer[..<count]) : []
    }
}

@available(*, unavailable, message: "The terminal is one: use its session from one thread.")
extension TerminalSession: Sendable {}

// The signal handler must restore the terminal with nothing but async-signal-safe calls
// (tcsetattr, write, _exit), so the saved settings live in globals it can reach.
// nonisolated(unsafe): written once by `open()` before the handler is installed, and only
// read afterwards, by the handler or by `close()` on the thread that opened the session.
nonisolated(unsafe) private var savedTerminalState = termios()
nonisolated(unsafe) private var hasSavedTerminalState = false

/// Leaves the alternate screen, shows the cursor and resets colours: a static string, so the
/// signal handler can write it without allocating.
private let leaveSequence: StaticString = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

private func writeAll(_ buffer: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < buffer.count, let base = buffer.baseAddress {
        #if canImport(Glibc)
        let written = Glibc.write(STDOUT_FILENO, base + offset, buffer.count - offset)
        #else
        let written = Darwin.write(STDOUT_FILENO, base + offset, buffer.count - offset)
        #endif
        if written > 0 {
            offset += written
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}

private func writeToTerminal(_ text: String) {
    var text = text
    text.withUTF8 { writeAll(UnsafeRawBufferPointer($0)) }
}

private func restoreTerminal() {
    guard hasSavedTerminalState else { return }
    leaveSequence.withUTF8Buffer { writeAll(UnsafeRawBufferPointer($0)) }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminalState)
}

private func restoreTerminalAndExit(_ signalNumber: Int32) {
    restoreTerminal()
    _exit(128 + signalNumber)
}
