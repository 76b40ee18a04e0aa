/// Limits on an HTTP/1.1 head (request line or status line plus header fields) that the
/// handshake parsers enforce before they build anything.
public struct HTTPHeadLimits: Hashable, Sendable {
    /// The most bytes the head may take, including the blank line that ends it. Default 16 KiB.
    public var maximumHeadBytes: Int
    /// The most header fields the head may carry. Default 64.
    public var maximumHeaderCount: Int

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - maximumHeadBytes: The most bytes of the whole head.
    ///   - maximumHeaderCount: The most header fields.
    public init(maximumHeadBytes: Int = 16 * 1024, maximumHeaderCount: Int = 64) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumHeaderCount = maximumHeaderCount
    }

    /// 16 KiB and 64 fields.
    public static let `default` = HTTPHeadLimits()
}

/// An HTTP/1.1 request head: request line and header fields.
public struct HTTPRequestHead: Hashable, Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The request target, e.g. `/chat?room=1`.
    public var target: String
    /// The protocol version as `(major, minor)`, e.g. `(1, 1)`.
    public var version: HTTPVersion
    /// The header fields.
    public var headers: HTTPHeaders
    /// The numeric host the request came from, as the server's socket saw it (`127.0.0.2`),
    /// set by the server before it calls ``WebSocketServerConfiguration/httpHandler``, for
    /// per-address budgets of its own; `nil` when not known (a parsed head, a test's head).
    public var remoteHost: String?

    /// Creates a request head.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The request target.
    ///   - version: The protocol version.
    ///   - headers: The header fields.
    public init(method: String = "GET", target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = HTTPHeaders()) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// The head in wire form, ending with the blank line.
    ///
    /// - Returns: The bytes to send.
    public func encoded() -> [UInt8] {
        var output = Array("\(method) \(target) \(version)\r\n".utf8)
        headers.encode(into: &output)
        output.append(contentsOf: "\r\n".utf8)
        return output
    }

    /// Parses a request head from the start of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: Bytes received so far; the head must start at the first byte.
    ///   - limits: Size and count limits.
    /// - Returns: The head and the number of bytes it took (bytes after it belong to the
    ///   WebSocket stream), or `nil` when the head is not complete yet.
    /// - Throws: ``WebSocketHandshakeError`` for a malformed head or a broken limit.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, limits: HTTPHeadLimits = .default
    ) throws(WebSocketHandshakeError) -> (head: HTTPRequestHead, byteCount: Int)? {
        // A request starts with its method (a token), so anything else is refused with its first
        // byte rather than after a whole head's worth of bytes or the handshake timeout: above
        // all a TLS ClientHello (0x16 0x03) sent to a plain ws:// port.
        if let first = bytes.first, first != UInt8(ascii: "\r"), first != UInt8(ascii: "\n"), !HeaderScanner.isTokenCharacter(first) {
            let isTLS = first == 0x16 && (bytes.count < 2 || bytes[1] == 0x03)
            throw .malformedHead(
                isTLS
                    ? "a TLS handshake on a plain ws:// port (connect with ws://, not wss://)"
                    : "a request must start with its method, not byte \(first)")
        }
        guard let (lines, byteCount) = try HTTPHeadParser.splitLines(bytes, limits: limits) else { return nil }
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].utf8.allSatisfy(HeaderScanner.isTokenCharacter),
            !parts[1].isEmpty, let version = HTTPVersion(parsing: parts[2])
        else {
            throw .malformedHead("bad request line '\(lines[0].prefix(100))'")
        }
        let headers = try HTTPHeadParser.parseFields(lines.dropFirst(), limits: limits)
        return (HTTPRequestHead(method: String(parts[0]), target: String(parts[1]), version: version, headers: headers), byteCount)
    }

    /// Parses a request head from the start of `bytes` (see ``parse(_:limits:)-(UnsafeRawBufferPointer,_)``).
    ///
    /// - Parameters:
    ///   - bytes: Bytes received so far.
    ///   - limits: Size and count limits.
    /// - Returns: The head and its byte count, or `nil` when incomplete.
    /// - Throws: ``WebSocketHandshakeError`` for a malformed head or a broken limit.
    public static func parse(
        _ bytes: [UInt8], limits: HTTPHeadLimits = .default
    ) throws(WebSocketHandshakeError) -> (head: HTTPRequestHead, byteCount: Int)? {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(WebSocketHandshakeError) in try parse(buffer, limits: limits) }
        }
        return try result.get()
    }
}

/// An HTTP/1.1 response head: status line and header fields.
public struct HTTPResponseHead: Hashable, Sendable {
    /// The protocol version.
    public var version: HTTPVersion
    /// The status code, e.g. 101.
    public var status: Int
    /// The reason phrase, e.g. `Switching Protocols`.
    public var reason: String
    /// The header fields.
    public var headers: HTTPHeaders

    /// Creates a response head.
    ///
    /// - Parameters:
    ///   - version: The protocol version.
    ///   - status: The status code.
    ///   - reason: The reason phrase.
    ///   - headers: The header fields.
    public init(version: HTTPVersion = .http11, status: Int, reason: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// The head in wire form, ending with the blank line.
    ///
    /// - Returns: The bytes to send.
    public func encoded() -> [UInt8] {
        var output = Array("\(version) \(status) \(reason)\r\n".utf8)
        headers.encode(into: &output)
        output.append(contentsOf: "\r\n".utf8)
        return output
    }

    /// Parses a response head from the start of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: Bytes received so far; the head must start at the first byte.
    ///   - limits: Size and count limits.
    /// - Returns: The head and the number of bytes it took (bytes after it are WebSocket
    ///   frames), or `nil` when the head is not complete yet.
    /// - Throws: ``WebSocketHandshakeError`` for a malformed head or a broken limit.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, limits: HTTPHeadLimits = .default
    ) throws(WebSocketHandshakeError) -> (head: HTTPResponseHead, byteCount: Int)? {
        guard let (lines, byteCount) = try HTTPHeadParser.splitLines(bytes, limits: limits) else { return nil }
        let parts = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let version = HTTPVersion(parsing: parts[0]), parts[1].utf8.count == 3,
            let status = Int(parts[1]), (100...999).contains(status)
        else {
            throw .malformedHead("bad status line '\(lines[0].prefix(100))'")
        }
        let headers = try HTTPHeadParser.parseFields(lines.dropFirst(), limits: limits)
        let reason = parts.count == 3 ? String(parts[2]) : ""
        return (HTTPResponseHead(version: version, status: status, reason: reason, headers: headers), byteCount)
    }

    /// Parses a response head from the start of `bytes` (see ``parse(_:limits:)-(UnsafeRawBufferPointer,_)``).
    ///
    /// - Parameters:
    ///   - bytes: Bytes received so far.
    ///   - limits: Size and count limits.
    /// - Returns: The head and its byte count, or `nil` when incomplete.
    /// - Throws: ``WebSocketHandshakeError`` for a malformed head or a broken limit.
    public static func parse(
        _ bytes: [UInt8], limits: HTTPHeadLimits = .default
    ) throws(WebSocketHandshakeError) -> (head: HTTPResponseHead, byteCount: Int)? {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(WebSocketHandshakeError) in try parse(buffer, limits: limits) }
        }
        return try result.get()
    }
}

/// An HTTP protocol version, `HTTP/major.minor`.
public struct HTTPVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The major version.
    public var major: Int
    /// The minor version.
    public var minor: Int

    /// Creates a version.
    ///
    /// - Parameters:
    ///   - major: The major version.
    ///   - minor: The minor version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.1, the version the WebSocket handshake requires at least.
    public static let http11 = HTTPVersion(major: 1, minor: 1)

    init?(parsing text: Substring) {
        guard text.hasPrefix("HTTP/"), text.utf8.count == 8 else { return nil }
        let digits = Array(text.utf8.dropFirst(5))
        guard digits[1] == UInt8(ascii: "."),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digits[0]),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digits[2])
        else { return nil }
        major = Int(digits[0] - UInt8(ascii: "0"))
        minor = Int(digits[2] - UInt8(ascii: "0"))
    }

    /// Orders versions by major, then minor number.
    public static func < (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// The version as written on the wire, e.g. `HTTP/1.1`.
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// The shared line-level parsing of request and response heads.
enum HTTPHeadParser {
    /// Finds the blank line ending the head within the byte limit and splits the head into lines.
    static func splitLines(
        _ bytes: UnsafeRawBufferPointer, limits: HTTPHeadLimits
    ) throws(WebSocketHandshakeError) -> (lines: [Substring], byteCount: Int)? {
        let searchable = min(bytes.count, limits.maximumHeadBytes)
        var end: Int?
        if searchable >= 4 {
            for index in 0...searchable - 4
            where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                end = index
                break
            }
        }
        guard let end else {
            if bytes.count >= limits.maximumHeadBytes { throw .headTooLarge(limit: limits.maximumHeadBytes) }
            return nil
        }
        // Only visible ASCII, obs-text, space, tab and CRLF may appear in a head.
        for index in 0..<end {
            let byte = bytes[index]
            if byte < 0x20 && byte != 9 && byte != 10 && byte != 13 || byte == 0x7F {
                throw .malformedHead("control byte 0x\(String(byte, radix: 16)) in the head")
            }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        for line in lines where line.contains("\r") || line.contains("\n") {
            throw .malformedHead("bare CR or LF inside a line")
        }
        guard let first = lines.first, !first.isEmpty else { throw .malformedHead("empty start line") }
        return (lines, end + 4)
    }

    /// Parses `name: value` lines into headers, enforcing the field count limit.
    static func parseFields(_ lines: ArraySlice<Substring>, limits: HTTPHeadLimits) throws(WebSocketHandshakeError) -> HTTPHeaders {
        guard lines.count <= limits.maximumHeaderCount else {
            throw .tooManyHeaders(count: lines.count, limit: limits.maximumHeaderCount)
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformedHead("header line without ':'") }
            let name = line[..<colon]
            // No whitespace before the colon (RFC 7230 3.2.4), no obsolete line folding.
            guard !name.isEmpty, name.utf8.allSatisfy(HeaderScanner.isTokenCharacter) else {
                throw .malformedHead("bad header name '\(name.prefix(60))'")
            }
            headers.add(name: String(name), value: line[line.index(after: colon)...].trimmingHTTPWhitespace())
        }
        return headers
    }
}
