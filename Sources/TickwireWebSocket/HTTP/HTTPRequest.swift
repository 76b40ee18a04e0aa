/// A whole HTTP/1.1 request held in memory: its head and its body, as the server hands it to
/// ``WebSocketServerConfiguration/httpRequestHandler``.
///
/// The body is what `Content-Length` announced, read whole before the handler runs, and never
/// more than ``WebSocketServerConfiguration/maximumHTTPBodyBytes``: a longer announcement is
/// refused with `413 Content Too Large`, and a chunked body (`Transfer-Encoding`) with
/// `411 Length Required`, before the handler is asked.
public struct HTTPRequest: Hashable, Sendable {
    /// The request line and header fields (its ``HTTPRequestHead/remoteHost`` set by the server).
    public var head: HTTPRequestHead
    /// The body: empty when the request announced none.
    public var body: [UInt8]

    /// A request.
    ///
    /// - Parameters:
    ///   - head: The request head.
    ///   - body: The body.
    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }

    /// The method, such as `POST`.
    public var method: String { head.method }

    /// The request target's path: the target up to its `?`, such as `/rooms`.
    public var path: Substring { head.target.prefix { $0 != "?" } }

    /// The target's query, after its `?`, or `nil` when it has none.
    public var query: Substring? {
        guard let question = head.target.firstIndex(of: "?") else { return nil }
        return head.target[head.target.index(after: question)...]
    }
}

/// Answers one plain HTTP request, with its body, on any thread and in its own time (a
/// matchmaker asks Redis before it answers); see ``WebSocketServerConfiguration/httpRequestHandler``.
public typealias HTTPRequestHandler = @Sendable (HTTPRequest) async -> HTTPResponse
