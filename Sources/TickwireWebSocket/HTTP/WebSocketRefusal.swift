/// A server's answer other than `101 Switching Protocols` to a WebSocket upgrade: its status,
/// the words of its body, and, when a ``WebSocketServer`` budget refused the connection, which
/// budget and its value (the ``headerName`` header).
///
/// A client reads it from ``WebSocketHandshakeError/refusal`` (``WebSocketClient/lastHandshakeError``):
///
/// ```swift
/// if let refusal = client.lastHandshakeError?.refusal, refusal.status == 429 {
///     print(refusal.budget ?? .addressConnectionLimit, refusal.limit ?? 0, refusal.body)
/// }
/// ```
public struct WebSocketRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The header a ``WebSocketServer`` names its budget in: `Tickwire-Refusal:
    /// address_connection_limit; limit=64` (a token, then `limit=` and the budget's value when it has one).
    public static let headerName = "Tickwire-Refusal"
    /// The most body bytes a client keeps (a refusal's body is a sentence, not a page).
    public static let maximumBodyBytes = 1024

    /// Which of a server's budgets refused a connection: the token of the ``headerName`` header,
    /// the same names as the `reason` label of `tickwire_websocket_connections_refused_total`.
    /// Extensible: a value this version does not name is kept as it came.
    public struct Budget: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The token, for example `address_connection_limit`.
        public let rawValue: String

        /// Creates a budget name.
        ///
        /// - Parameter rawValue: The header's token.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// 429: ``WebSocketServerConfiguration/maximumConnectionsPerAddress`` connections from one address.
        public static let addressConnectionLimit = Budget(rawValue: "address_connection_limit")
        /// 429: ``WebSocketServerConfiguration/maximumHandshakesPerAddress`` handshakes at once from one address.
        public static let addressHandshakeLimit = Budget(rawValue: "address_handshake_limit")
        /// 503: ``WebSocketServerConfiguration/maximumConnections`` open connections.
        public static let connectionLimit = Budget(rawValue: "connection_limit")
        /// 503: the oldest handshake was evicted at ``WebSocketServerConfiguration/maximumHandshakes``.
        public static let handshakeEvicted = Budget(rawValue: "handshake_evicted")
        /// 503: the server is shutting down (no value).
        public static let shuttingDown = Budget(rawValue: "shutting_down")

        /// The token.
        public var description: String { rawValue }
    }

    /// The HTTP status, 100...599 (never 101).
    public var status: Int
    /// The status line's reason phrase (`Too Many Requests`).
    public var reasonPhrase: String
    /// The body's text, trimmed, at most ``maximumBodyBytes`` bytes; empty when there was none.
    public var body: String
    /// The budget the server named, or `nil` (another server, or a refusal that is no budget's).
    public var budget: Budget?
    /// The budget's value the server named (`64` for `limit=64`), or `nil`.
    public var limit: Int?

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - reasonPhrase: The status line's reason phrase.
    ///   - body: The body's text.
    ///   - budget: The budget the server named.
    ///   - limit: The budget's value.
    public init(status: Int, reasonPhrase: String, body: String = "", budget: Budget? = nil, limit: Int? = nil) {
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.body = body
        self.budget = budget
        self.limit = limit
    }

    /// Reads a refusal from a response head and the body bytes that came with it.
    ///
    /// - Parameters:
    ///   - head: The response head (status other than 101).
    ///   - body: The bytes after the head; at most ``maximumBodyBytes`` (and at most the
    ///     head's `Content-Length`) are kept, decoded as UTF-8 with invalid bytes replaced.
    public init(head: HTTPResponseHead, body: some Collection<UInt8>) {
        var length = min(body.count, Self.maximumBodyBytes)
        if let declared = head.headers["Content-Length"].flatMap({ Int($0) }), declared >= 0 { length = min(length, declared) }
        let text = String(decoding: body.prefix(length), as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        let named = head.headers[Self.headerName].map(Self.parseHeader)
        self.init(
            status: head.status, reasonPhrase: head.reason, body: String(trimmed), budget: named?.budget, limit: named?.limit)
    }

    /// The ``headerName`` value for `budget` and its value: `address_connection_limit; limit=64`.
    ///
    /// - Parameters:
    ///   - budget: The budget that refused.
    ///   - limit: Its value, or `nil` for a budget without one.
    /// - Returns: The header value.
    public static func headerValue(budget: Budget, limit: Int?) -> String {
        limit.map { "\(budget.rawValue); limit=\($0)" } ?? budget.rawValue
    }

    /// Parses a ``headerName`` value; an unreadable `limit` parameter is left out.
    ///
    /// - Parameter value: The header's value.
    /// - Returns: The budget (nil when the token is empty) and its limit.
    public static func parseHeader(_ value: String) -> (budget: Budget?, limit: Int?) {
        let parts = value.split(separator: ";").map { $0.trimmingSpaces }
        let token = parts.first ?? ""
        var limit: Int?
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            if pair.count == 2, pair[0].lowercased() == "limit" { limit = Int(pair[1]) }
        }
        return (token.isEmpty ? nil : Budget(rawValue: token), limit)
    }

    /// `429 Too Many Requests: too many connections from your address (limit 64)`.
    public var description: String {
        let head = "\(status) \(reasonPhrase)"
        return body.isEmpty ? head : "\(head): \(body)"
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
