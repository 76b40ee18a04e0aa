/// Why a WebSocket opening handshake failed, on either side.
///
/// On a server, ``httpStatus`` is the status to answer with
/// (``WebSocketServerHandshake/errorResponse(for:)`` builds the whole response).
public struct WebSocketHandshakeError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case malformedHead(String)
        case headTooLarge(limit: Int)
        case tooManyHeaders(count: Int, limit: Int)
        case methodNotAllowed(String)
        case unsupportedHTTPVersion(HTTPVersion)
        case missingHeader(String)
        case invalidHeader(name: String, value: String)
        case unsupportedWebSocketVersion(String)
        case unexpectedStatus(Int, String)
        case refused(WebSocketRefusal)
        case acceptMismatch(expected: String, received: String)
        case unexpectedSubprotocol(String)
        case unexpectedExtension(String)
        case invalidExtensionResponse(String)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// The head is not valid HTTP/1.1 (`detail` says where).
    public static func malformedHead(_ detail: String) -> WebSocketHandshakeError { .init(.malformedHead(detail)) }
    /// No blank line within ``HTTPHeadLimits/maximumHeadBytes``.
    public static func headTooLarge(limit: Int) -> WebSocketHandshakeError { .init(.headTooLarge(limit: limit)) }
    /// More header fields than ``HTTPHeadLimits/maximumHeaderCount``.
    public static func tooManyHeaders(count: Int, limit: Int) -> WebSocketHandshakeError {
        .init(.tooManyHeaders(count: count, limit: limit))
    }
    /// The request method was not `GET`.
    public static func methodNotAllowed(_ method: String) -> WebSocketHandshakeError { .init(.methodNotAllowed(method)) }
    /// The HTTP version was below 1.1.
    public static func unsupportedHTTPVersion(_ version: HTTPVersion) -> WebSocketHandshakeError {
        .init(.unsupportedHTTPVersion(version))
    }
    /// A required header was absent.
    public static func missingHeader(_ name: String) -> WebSocketHandshakeError { .init(.missingHeader(name)) }
    /// A header had a value the handshake does not allow.
    public static func invalidHeader(name: String, value: String) -> WebSocketHandshakeError {
        .init(.invalidHeader(name: name, value: value))
    }
    /// `Sec-WebSocket-Version` was not 13.
    public static func unsupportedWebSocketVersion(_ value: String) -> WebSocketHandshakeError {
        .init(.unsupportedWebSocketVersion(value))
    }
    /// The server answered with a status other than 101.
    public static func unexpectedStatus(_ status: Int, reason: String) -> WebSocketHandshakeError {
        .init(.unexpectedStatus(status, reason))
    }
    /// The server refused the upgrade with a status other than 101 and said why in its body
    /// (and, a ``WebSocketServer``, which budget in the ``WebSocketRefusal/headerName`` header).
    public static func refused(_ refusal: WebSocketRefusal) -> WebSocketHandshakeError { .init(.refused(refusal)) }
    /// `Sec-WebSocket-Accept` did not match the key sent.
    public static func acceptMismatch(expected: String, received: String) -> WebSocketHandshakeError {
        .init(.acceptMismatch(expected: expected, received: received))
    }
    /// The server chose a subprotocol the client did not offer.
    public static func unexpectedSubprotocol(_ name: String) -> WebSocketHandshakeError { .init(.unexpectedSubprotocol(name)) }
    /// The server answered with an extension the client did not offer.
    public static func unexpectedExtension(_ name: String) -> WebSocketHandshakeError { .init(.unexpectedExtension(name)) }
    /// The server's extension answer was malformed or broke the offer.
    public static func invalidExtensionResponse(_ detail: String) -> WebSocketHandshakeError {
        .init(.invalidExtensionResponse(detail))
    }

    /// The server's answer when it refused the upgrade (a status other than 101), with its body
    /// when the client read one; `nil` for every other failure.
    public var refusal: WebSocketRefusal? {
        switch kind {
        case .refused(let refusal): refusal
        case .unexpectedStatus(let status, let reason): WebSocketRefusal(status: status, reasonPhrase: reason)
        default: nil
        }
    }

    /// The HTTP status a server answers this error with.
    public var httpStatus: Int {
        switch kind {
        case .headTooLarge, .tooManyHeaders: 431
        case .methodNotAllowed: 405
        case .unsupportedHTTPVersion: 505
        case .unsupportedWebSocketVersion: 426
        case .missingHeader("Upgrade"), .missingHeader("Sec-WebSocket-Version"): 426
        default: 400
        }
    }

    /// A plain-words description for logs and error messages.
    public var description: String {
        switch kind {
        case .malformedHead(let detail): "malformed HTTP head: \(detail)"
        case .headTooLarge(let limit): "HTTP head is over \(limit) bytes"
        case .tooManyHeaders(let count, let limit): "HTTP head has \(count) header fields, over the limit of \(limit)"
        case .methodNotAllowed(let method): "method \(method) is not allowed; a WebSocket handshake uses GET"
        case .unsupportedHTTPVersion(let version): "\(version) is too old; a WebSocket handshake needs HTTP/1.1"
        case .missingHeader(let name): "required header \(name) is missing"
        case .invalidHeader(let name, let value): "header \(name) has an invalid value '\(value.prefix(100))'"
        case .unsupportedWebSocketVersion(let value): "Sec-WebSocket-Version '\(value)' is not 13"
        case .unexpectedStatus(let status, let reason): "server answered \(status) \(reason) instead of 101"
        case .refused(let refusal):
            "server answered \(refusal.status) \(refusal.reasonPhrase) instead of 101\(refusal.body.isEmpty ? "" : ": \(refusal.body)")"
        case .acceptMismatch(let expected, let received):
            "Sec-WebSocket-Accept is '\(received)', expected '\(expected)'"
        case .unexpectedSubprotocol(let name): "server chose subprotocol '\(name)', which the client did not offer"
        case .unexpectedExtension(let name): "server answered with extension '\(name)', which the client did not offer"
        case .invalidExtensionResponse(let detail): "bad permessage-deflate answer: \(detail)"
        }
    }
}
