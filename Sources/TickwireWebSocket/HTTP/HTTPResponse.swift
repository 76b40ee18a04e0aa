/// A whole HTTP/1.1 response held in memory: what a ``WebSocketServerConfiguration/httpHandler``
/// returns for a request that is not a WebSocket upgrade.
///
/// The server adds `Content-Length` and `Connection: close` itself (replacing any the handler
/// set), sends the head and the body (only the head for `HEAD`), and closes the connection once
/// both are sent: one request per connection, which HTTP/1.1 allows (RFC 9112 section 9.6).
public struct HTTPResponse: Hashable, Sendable {
    /// The status code, 100...999, for example 200 or 404.
    public var status: Int
    /// The reason phrase of the status line, for example `OK`.
    public var reason: String
    /// The header fields (`Content-Type`, `Cache-Control`, `ETag`, …).
    public var headers: HTTPHeaders
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code (clamped to 100...999).
    ///   - reason: The reason phrase; `nil` takes the standard one for `status`.
    ///   - headers: Header fields; `Content-Length` and `Connection` are set by the server.
    ///   - body: The body.
    public init(status: Int, reason: String? = nil, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = min(max(status, 100), 999)
        self.reason = reason ?? Self.reasonPhrase(for: self.status)
        self.headers = headers
        self.body = body
    }

    /// A plain-text response (`text/plain; charset=utf-8`), the text followed by a newline.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - text: The body's text.
    /// - Returns: The response.
    public static func text(status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array((text + "\n").utf8))
    }

    /// The bytes the server sends: the head with `Content-Length` and `Connection: close`, then
    /// the body unless the request was `HEAD`.
    ///
    /// - Parameter includesBody: Whether to send the body (`false` for `HEAD`).
    /// - Returns: Head and body.
    public func encoded(includesBody: Bool = true) -> [UInt8] {
        var fields = HTTPHeaders()
        for field in headers {
            let name = field.name.lowercased()
            if name != "content-length" && name != "connection" && name != "transfer-encoding" {
                fields.add(name: field.name, value: field.value)
            }
        }
        fields.add(name: "Content-Length", value: String(body.count))
        fields.add(name: "Connection", value: "close")
        var output = HTTPResponseHead(status: status, reason: reason, headers: fields).encoded()
        if includesBody { output.append(contentsOf: body) }
        return output
    }

    /// The standard reason phrase of a status code (RFC 9110 section 15), or `Status` for others.
    ///
    /// - Parameter status: The status code.
    /// - Returns: The phrase, for example `Not Found` for 404.
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
