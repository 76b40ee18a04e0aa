#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the library's log records go: the one logging seam of every configuration (the host's,
/// the WebSocket server's and client's, the client session's).
///
/// A sink is a value: a minimum level and a handler closure. The library builds a record only
/// when its level passes the minimum, so a disabled sink costs one comparison. The handler is
/// called on whichever thread logs (a tick thread, a socket loop), so it must be thread-safe
/// and quick; route it to swift-log, `os_log` or a file as the application likes
/// (``LogRecord`` shows a swift-log bridge). The library never prints on its own.
public struct LogSink: Sendable {
    /// Records below this level are not built nor handed on.
    public var minimumLevel: LogLevel
    private let handler: (@Sendable (LogRecord) -> Void)?

    /// Creates a sink that hands every record at or above `minimumLevel` to `handler`.
    ///
    /// - Parameters:
    ///   - minimumLevel: The least severe level handed on. Default `.info`.
    ///   - handler: Receives each record, on the thread that logged it.
    public init(minimumLevel: LogLevel = .info, handler: @escaping @Sendable (LogRecord) -> Void) {
        self.minimumLevel = minimumLevel
        self.handler = handler
    }

    /// A sink that drops everything: the default of every configuration.
    public static let disabled = LogSink()

    private init() {
        minimumLevel = .critical
        handler = nil
    }

    /// A sink that writes each record as one line to standard error (``LogRecord/description``,
    /// prefixed with `label: `): what the `arena` and `tickwire` commands use.
    ///
    /// - Parameters:
    ///   - label: Names the program in each line.
    ///   - minimumLevel: The least severe level written. Default `.info`.
    /// - Returns: The sink.
    public static func standardError(label: String, minimumLevel: LogLevel = .info) -> LogSink {
        LogSink(minimumLevel: minimumLevel) { record in
            let line = "\(label): \(record)\n"
            // One write(2) per line, so lines from several threads do not interleave.
            Array(line.utf8).withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let written = write(2, base + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }  // A signal came first: write again.
                    if written <= 0 { break }  // Standard error is gone: nowhere left to say so.
                    offset += written
                }
            }
        }
    }

    /// Whether a record at `level` would be handed on.
    ///
    /// - Parameter level: The level.
    /// - Returns: `true` when `level` is at or above ``minimumLevel`` and the sink has a handler.
    public func isEnabled(for level: LogLevel) -> Bool {
        handler != nil && level >= minimumLevel
    }

    /// Logs a message: builds the record only when its level passes ``minimumLevel``.
    ///
    /// - Parameters:
    ///   - level: How much it matters.
    ///   - message: What happened (not evaluated when the level is filtered out).
    ///   - metadata: Facts that go with it (likewise).
    ///   - source: The component logging it.
    public func log(
        _ level: LogLevel, _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> [String: String] = [:], source: String
    ) {
        guard let handler, level >= minimumLevel else { return }
        handler(LogRecord(level: level, message: message(), metadata: metadata(), source: source))
    }
}
