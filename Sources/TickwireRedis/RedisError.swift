import TickwireIO

/// Why a Redis command, connection or URL failed.
///
/// A struct wrapping a private enum, so that new cases are not breaking changes; the accessors
/// tell the kinds apart, and ``description`` says in words what went wrong and with which value.
public struct RedisError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case invalidURL(url: String, reason: String)
        case connectionRefused(String)
        case connectionLost(String)
        case notConnected
        case timeout(what: String, after: Duration)
        case protocolViolation(String)
        case serverError(String)
        case limitExceeded(name: String, limit: Int, value: Int)
        case stopped
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    static func invalidURL(_ url: String, _ reason: String) -> RedisError { RedisError(.invalidURL(url: url, reason: reason)) }
    static func connectionRefused(_ detail: String) -> RedisError { RedisError(.connectionRefused(detail)) }
    static func connectionLost(_ detail: String) -> RedisError { RedisError(.connectionLost(detail)) }
    static let notConnected = RedisError(.notConnected)
    static func timeout(_ what: String, after: Duration) -> RedisError { RedisError(.timeout(what: what, after: after)) }
    static func protocolViolation(_ detail: String) -> RedisError { RedisError(.protocolViolation(detail)) }
    static func serverError(_ message: String) -> RedisError { RedisError(.serverError(message)) }
    static func limitExceeded(_ name: String, limit: Int, value: Int) -> RedisError {
        RedisError(.limitExceeded(name: name, limit: limit, value: value))
    }
    static let stopped = RedisError(.stopped)

    /// The text of the error reply Redis sent (for example `WRONGTYPE Operation against a key…`),
    /// or `nil` for an error of the connection or of this side.
    public var serverMessage: String? {
        if case .serverError(let message) = kind { return message }
        return nil
    }

    /// Whether Redis could not be reached, the connection broke, or there is no connection now:
    /// the command may succeed once the client has reconnected.
    public var isConnectionFailure: Bool {
        switch kind {
        case .connectionRefused, .connectionLost, .notConnected: true
        default: false
        }
    }

    /// Whether a connect or a command took longer than its timeout.
    public var isTimeout: Bool {
        if case .timeout = kind { return true }
        return false
    }

    /// Whether Redis sent bytes that are not RESP2 (the connection is closed).
    public var isProtocolViolation: Bool {
        if case .protocolViolation = kind { return true }
        return false
    }

    /// The name of the limit a reply or the pipeline went past (``RedisReplyLimits``,
    /// ``RedisClientConfiguration/maximumPendingCommands``), or `nil`.
    public var exceededLimit: String? {
        if case .limitExceeded(let name, _, _) = kind { return name }
        return nil
    }

    /// Whether a `redis://` URL could not be parsed.
    public var isInvalidURL: Bool {
        if case .invalidURL = kind { return true }
        return false
    }

    /// Plain words, naming the value or limit at fault.
    public var description: String {
        switch kind {
        case .invalidURL(let url, let reason): "invalid Redis URL \"\(url)\": \(reason)"
        case .connectionRefused(let detail): "cannot connect to Redis: \(detail)"
        case .connectionLost(let detail): "the connection to Redis was lost: \(detail)"
        case .notConnected: "not connected to Redis (reconnecting)"
        case .timeout(let what, let after): "\(what) got no answer from Redis within \(after)"
        case .protocolViolation(let detail): "Redis sent something that is not RESP2: \(detail)"
        case .serverError(let message): "Redis answered with an error: \(message)"
        case .limitExceeded(let name, let limit, let value): "\(name) is \(limit), and this is \(value)"
        case .stopped: "the Redis client was stopped"
        }
    }
}
