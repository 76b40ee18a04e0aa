/// How much a log record matters, from the most verbose to the most severe: swift-log's seven
/// levels, so that a bridge maps them one to one.
public struct LogLevel: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The level's rank: 0 (`trace`) to 6 (`critical`).
    public let rank: UInt8

    private init(rank: UInt8) { self.rank = rank }

    /// Detail for following one operation step by step.
    public static let trace = LogLevel(rank: 0)
    /// Detail for debugging: a connection's handshake, a room's creation.
    public static let debug = LogLevel(rank: 1)
    /// Something ordinary worth a line: a server listening, a room restored.
    public static let info = LogLevel(rank: 2)
    /// Something an operator may want to know: a client refused, a snapshot skipped.
    public static let notice = LogLevel(rank: 3)
    /// Something went wrong and was handled: an accept failed and is retried.
    public static let warning = LogLevel(rank: 4)
    /// Something went wrong that loses work: a snapshot not encoded, a state not saved.
    public static let error = LogLevel(rank: 5)
    /// The component cannot go on: a listener that can never accept again.
    public static let critical = LogLevel(rank: 6)

    /// Every level, from `trace` to `critical`.
    public static let all: [LogLevel] = [.trace, .debug, .info, .notice, .warning, .error, .critical]

    /// Creates the level that `name` names (`"warning"`), for a command line or a configuration file.
    ///
    /// - Parameter name: One of `trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical`.
    public init?(name: String) {
        guard let level = LogLevel.all.first(where: { $0.description == name }) else { return nil }
        self = level
    }

    /// Whether `lhs` is less severe than `rhs`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }

    /// The level's name, as swift-log spells it: `trace` … `critical`.
    public var description: String {
        switch rank {
        case 0: "trace"
        case 1: "debug"
        case 2: "info"
        case 3: "notice"
        case 4: "warning"
        case 5: "error"
        default: "critical"
        }
    }
}
