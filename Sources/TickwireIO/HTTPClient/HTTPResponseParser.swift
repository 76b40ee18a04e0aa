/// An HTTP/1.x response as an ``HTTPExchange`` reads it: the status, the header fields in order,
/// and the body.
package struct HTTPExchangeResponse: Hashable, Sendable {
    /// The status code, such as 200.
    package var status: Int
    /// The reason phrase of the status line (possibly empty).
    package var reason: String
    /// The header fields, in the order they came, names as sent.
    package var headers: [HTTPExchangeHeader]
    /// The body: `Content-Length` bytes, or everything up to the close when none was announced.
    package var body: [UInt8]

    /// The value of the first field named `name` (compared without case), or `nil`.
    package func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}

/// One header field of an ``HTTPExchangeResponse``.
package struct HTTPExchangeHeader: Hashable, Sendable {
    /// The field's name, as sent.
    package var name: String
    /// The field's value, without the spaces around it.
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Reads an HTTP/1.x response from the bytes as they arrive, sans-IO: the status line, header
/// fields, then a body of `Content-Length` bytes (or up to the close when there is none). Every
/// limit is checked before the bytes are kept: the head's ``maximumHeadBytes``, the body's
/// ``maximumBodyBytes`` (against `Content-Length` as soon as the head is read).
package struct HTTPResponseParser: Sendable {
    /// The longest response head read (status line and header fields): 16 KiB.
    package static let maximumHeadBytes = 16_384

    /// Where the parser stands after the bytes given so far.
    package enum Progress: Hashable, Sendable {
        /// More bytes are needed.
        case needMore
        /// The response is complete.
        case complete(HTTPExchangeResponse)
    }

    /// The longest body read.
    package let maximumBodyBytes: Int
    /// Whether the request was `HEAD` (whose response has no body, whatever it announces).
    package let isHeadRequest: Bool
    private var buffer: [UInt8] = []
    private var head: (status: Int, reason: String, headers: [HTTPExchangeHeader], contentLength: Int?)?
    private var body: [UInt8] = []

    /// A parser for one response.
    ///
    /// - Parameters:
    ///   - maximumBodyBytes: The longest body read; a longer one is an error.
    ///   - isHeadRequest: Whether the request was `HEAD`.
    package init(maximumBodyBytes: Int, isHeadRequest: Bool = false) {
        self.maximumBodyBytes = maximumBodyBytes
        self.isHeadRequest = isHeadRequest
    }

    /// Bytes received so far, head and body.
    package private(set) var receivedCount = 0

    /// Takes in the next bytes of the response.
    ///
    /// - Parameter bytes: What arrived.
    /// - Returns: Whether the response is complete.
    /// - Throws: ``HTTPExchangeError/Kind``: a limit passed, or bytes that are not a response.
    package mutating func receive(_ bytes: some Collection<UInt8>) throws(HTTPExchangeError.Kind) -> Progress {
        receivedCount += bytes.count
        if let head {
            return try takeBody(bytes, contentLength: head.contentLength)
        }
        buffer.append(contentsOf: bytes)
        guard let end = Self.endOfHead(in: buffer) else {
            guard buffer.count <= Self.maximumHeadBytes else { throw .headTooLarge(limit: Self.maximumHeadBytes) }
            return .needMore
        }
        guard end <= Self.maximumHeadBytes else { throw .headTooLarge(limit: Self.maximumHeadBytes) }
        let parsed = try Self.parseHead(buffer[..<end])
        var contentLength = parsed.contentLength
        // RFC 9110 6.4.1: these never have a body.
        if isHeadRequest || parsed.status == 204 || parsed.status == 304 || (100..<200).contains(parsed.status) { contentLength = 0 }
        if let contentLength, contentLength > maximumBodyBytes {
            throw .bodyTooLarge(size: contentLength, limit: maximumBodyBytes)
        }
        head = (parsed.status, parsed.reason, parsed.headers, contentLength)
        let rest = Array(buffer[(end + 4)...])
        buffer = []
        return try takeBody(rest, contentLength: contentLength)
    }

    /// The connection closed: the response, when one without `Content-Length` ends here.
    ///
    /// - Returns: The response.
    /// - Throws: ``HTTPExchangeError/Kind/incomplete(received:)`` when the head or the announced
    ///   body is not complete.
    package func finish() throws(HTTPExchangeError.Kind) -> HTTPExchangeResponse {
        guard let head, head.contentLength == nil else { throw .incomplete(received: receivedCount) }
        return HTTPExchangeResponse(status: head.status, reason: head.reason, headers: head.headers, body: body)
    }

    private mutating func takeBody(_ bytes: some Collection<UInt8>, contentLength: Int?) throws(HTTPExchangeError.Kind) -> Progress {
        let wanted = contentLength ?? maximumBodyBytes + 1
        body.append(contentsOf: bytes.prefix(wanted - body.count))
        if contentLength == nil, body.count > maximumBodyBytes {
            throw .bodyTooLarge(size: body.count, limit: maximumBodyBytes)
        }
        guard let head, let contentLength, body.count == contentLength else { return .needMore }
        return .complete(HTTPExchangeResponse(status: head.status, reason: head.reason, headers: head.headers, body: body))
    }

    /// The index of the `\r\n\r\n` that ends the head, or `nil`.
    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The status line and fields of a head (without its final blank line).
    static func parseHead(
        _ bytes: ArraySlice<UInt8>
    ) throws(HTTPExchangeError.Kind) -> (status: Int, reason: String, headers: [HTTPExchangeHeader], contentLength: Int?) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformed("the head is not UTF-8") }
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let statusLine = lines.first else { throw .malformed("no status line") }
        // status-line = HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 4)
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0" else {
            throw .malformed("the status line '\(statusLine.prefix(80))' is not HTTP/1.x")
        }
        guard parts[1].utf8.count == 3, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let status = Int(parts[1]),
            status >= 100
        else {
            throw .malformed("the status '\(parts[1].prefix(20))' is not three digits")
        }
        let reason = parts.count > 2 ? String(parts[2]) : ""
        var headers: [HTTPExchangeHeader] = []
        var contentLength: Int?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .malformed("the header line '\(line.prefix(80))' has no name")
            }
            let name = String(line[..<colon])
            guard !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                throw .malformed("the header name '\(name.prefix(80))' has spaces")
            }
            let value = String(line[line.index(after: colon)...].trimmingSpaces())
            headers.append(HTTPExchangeHeader(name, value))
            switch name.lowercased() {
            case "content-length":
                // RFC 9110 8.6: digits only; repeated fields must agree.
                guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                    let length = Int(value)
                else {
                    throw .malformed("Content-Length '\(value.prefix(40))' is not a number of bytes")
                }
                if let contentLength, contentLength != length {
                    throw .malformed("two Content-Length fields disagree (\(contentLength) and \(length))")
                }
                contentLength = length
            case "transfer-encoding":
                throw .malformed("Transfer-Encoding '\(value.prefix(40))' is not read by this client: it needs Content-Length")
            default:
                break
            }
        }
        return (status, reason, headers, contentLength)
    }
}

extension Substring {
    /// Without the spaces and tabs at either end.
    fileprivate func trimmingSpaces() -> Substring {
        guard let first = firstIndex(where: { $0 != " " && $0 != "\t" }), let last = lastIndex(where: { $0 != " " && $0 != "\t" }) else {
            return ""
        }
        return self[first...last]
    }
}
