/// One message the library logs: what a ``LogSink``'s handler receives.
///
/// Shaped like swift-log's `LogHandler.log(level:message:metadata:source:…)`, so that a bridge
/// to swift-log or `os_log` is a few lines:
///
/// ```swift
/// let logger = Logger(label: "game-server")            // swift-log
/// let sink = LogSink(minimumLevel: .info) { record in
///     let metadata = record.metadata.mapValues { Logger.MetadataValue.string($0) }
///     logger.log(level: Logger.Level(rawValue: "\(record.level)") ?? .info,
///                "\(record.message)", metadata: metadata, source: record.source)
/// }
/// ```
public struct LogRecord: Hashable, Sendable, CustomStringConvertible {
    /// How much the record matters.
    public var level: LogLevel
    /// What happened, in words for an operator.
    public var message: String
    /// Facts that go with the message (`room`, `client`, `limit`, `error`), as text.
    public var metadata: [String: String]
    /// The component that logged it: `host`, `room`, `listener`, `client`, `websocket-server`.
    public var source: String

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - level: How much it matters.
    ///   - message: What happened.
    ///   - metadata: Facts that go with it.
    ///   - source: The component that logged it.
    public init(level: LogLevel, message: String, metadata: [String: String] = [:], source: String) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.source = source
    }

    /// One line: `warning listener: accept failed; retrying in 100 ms error=EMFILE`, the
    /// metadata sorted by key.
    public var description: String {
        var line = "\(level) \(source): \(message)"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        return line
    }
}
