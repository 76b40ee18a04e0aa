/// A server's refusal of a connection before any game message: the status and words its
/// transport's own handshake answered with (for WebSocket, the HTTP status of an upgrade the
/// server would not make, such as `401 Unauthorized` from a token check), carried by
/// ``TransportCloseReason/refusal``.
///
/// A ``ReconnectingSession`` treats a refusal whose status is in
/// ``ReconnectingSession/finalConnectionRefusals`` (401 and 403 by default) as final.
public struct TransportRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The status, for WebSocket the HTTP status (never 101).
    public var status: Int
    /// The status's words, for WebSocket the reason phrase of the status line (`Unauthorized`).
    public var reason: String
    /// What the server said beyond that, for WebSocket the response body's text; empty when none.
    public var text: String

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - reason: The status's words.
    ///   - text: The server's further words.
    public init(status: Int, reason: String, text: String = "") {
        self.status = status
        self.reason = reason
        self.text = text
    }

    /// The status, its words and the server's: `401 Unauthorized: the token expired`.
    public var description: String {
        let head = reason.isEmpty ? "\(status)" : "\(status) \(reason)"
        return text.isEmpty ? head : "\(head): \(text)"
    }
}

/// An error an opener of connections throws when the server refused the connection before any
/// game message (a token endpoint that answered `401`, say): a ``ReconnectingSession`` reads
/// the refusal and stops, as it does for a refused WebSocket upgrade, when its status is in
/// ``ReconnectingSession/finalConnectionRefusals``.
public protocol TransportRefusalError: Error {
    /// The server's refusal, when that is what failed; `nil` for any other failure.
    var transportRefusal: TransportRefusal? { get }
}
