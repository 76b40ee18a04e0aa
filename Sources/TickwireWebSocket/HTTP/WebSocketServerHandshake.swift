/// The server side of the WebSocket opening handshake (RFC 6455 section 4.2): validate an
/// upgrade request, negotiate subprotocol and permessage-deflate, build the 101 response
/// or an HTTP error response.
public enum WebSocketServerHandshake {
    /// The GUID RFC 6455 appends to the key before hashing.
    public static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// What the server supports.
    public struct Configuration: Hashable, Sendable {
        /// Supported subprotocols in order of preference; the first one the client also offers wins.
        public var subprotocols: [String]
        /// Whether to refuse (400) a client that offers none of ``subprotocols`` (when that list is not empty).
        public var requiresSubprotocol: Bool
        /// permessage-deflate settings, or `nil` to never compress.
        public var compression: PerMessageDeflateConfiguration?
        /// Extra header fields for the 101 response.
        public var extraResponseHeaders: HTTPHeaders

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - subprotocols: Supported subprotocols, preferred first.
        ///   - requiresSubprotocol: Whether a client must offer one of them.
        ///   - compression: permessage-deflate settings, or `nil`.
        ///   - extraResponseHeaders: Extra fields for the 101 response.
        public init(
            subprotocols: [String] = [], requiresSubprotocol: Bool = false,
            compression: PerMessageDeflateConfiguration? = nil, extraResponseHeaders: HTTPHeaders = HTTPHeaders()
        ) {
            self.subprotocols = subprotocols
            self.requiresSubprotocol = requiresSubprotocol
            self.compression = compression
            self.extraResponseHeaders = extraResponseHeaders
        }
    }

    /// An accepted upgrade: the response to send and what was agreed.
    public struct Acceptance: Hashable, Sendable {
        /// The request that was accepted.
        public var request: HTTPRequestHead
        /// The chosen subprotocol, or `nil`.
        public var subprotocol: String?
        /// The agreed permessage-deflate parameters, or `nil` for none.
        public var compression: PerMessageDeflateParameters?
        /// The `101 Switching Protocols` response.
        public var response: HTTPResponseHead
    }

    /// The `Sec-WebSocket-Accept` value for a key: Base64 of SHA-1 of key + GUID.
    ///
    /// - Parameter key: The client's `Sec-WebSocket-Key` value.
    /// - Returns: The accept value.
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + acceptGUID).utf8)))
    }

    /// Validates an upgrade request and builds the 101 response.
    ///
    /// Requires `GET`, HTTP/1.1 or later, `Host`, `Upgrade: websocket`, `Connection`
    /// containing `upgrade`, a `Sec-WebSocket-Key` that is Base64 of 16 bytes, and
    /// `Sec-WebSocket-Version: 13`.
    ///
    /// - Parameters:
    ///   - request: The parsed request head.
    ///   - configuration: What the server supports.
    /// - Returns: The response and the agreed subprotocol and compression.
    /// - Throws: ``WebSocketHandshakeError``; answer it with ``errorResponse(for:)``.
    public static func accept(
        _ request: HTTPRequestHead, configuration: Configuration = Configuration()
    ) throws(WebSocketHandshakeError) -> Acceptance {
        guard request.method == "GET" else { throw .methodNotAllowed(request.method) }
        guard request.version >= .http11 else { throw .unsupportedHTTPVersion(request.version) }
        let headers = request.headers
        guard headers["Host"] != nil else { throw .missingHeader("Host") }
        guard let upgrade = headers["Upgrade"] else { throw .missingHeader("Upgrade") }
        guard headers.containsToken("websocket", in: "Upgrade") else {
            throw .invalidHeader(name: "Upgrade", value: upgrade)
        }
        guard let connection = headers["Connection"] else { throw .missingHeader("Connection") }
        guard headers.containsToken("upgrade", in: "Connection") else {
            throw .invalidHeader(name: "Connection", value: connection)
        }
        let keys = headers.values(for: "Sec-WebSocket-Key")
        guard let key = keys.first else { throw .missingHeader("Sec-WebSocket-Key") }
        guard keys.count == 1, Base64.decode(key)?.count == 16 else {
            throw .invalidHeader(name: "Sec-WebSocket-Key", value: keys.joined(separator: ", "))
        }
        guard let version = headers["Sec-WebSocket-Version"] else { throw .missingHeader("Sec-WebSocket-Version") }
        guard headers.values(for: "Sec-WebSocket-Version").count == 1, version == "13" else {
            throw .unsupportedWebSocketVersion(headers.values(for: "Sec-WebSocket-Version").joined(separator: ", "))
        }

        let offeredProtocols = headers.listElements(for: "Sec-WebSocket-Protocol")
        let subprotocol = configuration.subprotocols.first { offeredProtocols.contains($0) }
        if subprotocol == nil && configuration.requiresSubprotocol && !configuration.subprotocols.isEmpty {
            throw .invalidHeader(name: "Sec-WebSocket-Protocol", value: offeredProtocols.joined(separator: ", "))
        }

        var response = HTTPResponseHead(status: 101, reason: "Switching Protocols")
        response.headers.add(name: "Upgrade", value: "websocket")
        response.headers.add(name: "Connection", value: "Upgrade")
        response.headers.add(name: "Sec-WebSocket-Accept", value: acceptValue(forKey: key))
        if let subprotocol { response.headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }

        var compression: PerMessageDeflateParameters?
        if let wanted = configuration.compression {
            let extensionValues = headers.values(for: "Sec-WebSocket-Extensions")
            // An unparsable extension header is not fatal: the server simply accepts no extension.
            if !extensionValues.isEmpty,
                let offers = WebSocketExtensionElement.parseList(extensionValues.joined(separator: ", ")),
                let (parameters, element) = PerMessageDeflateNegotiation.serverResponse(to: offers, configuration: wanted)
            {
                compression = parameters
                response.headers.add(name: "Sec-WebSocket-Extensions", value: element.description)
            }
        }
        response.headers.add(contentsOf: configuration.extraResponseHeaders)
        return Acceptance(request: request, subprotocol: subprotocol, compression: compression, response: response)
    }

    /// The HTTP response that refuses a handshake for `error`, closing the connection.
    ///
    /// A 426 carries `Sec-WebSocket-Version: 13` (RFC 6455 section 4.4) and `Upgrade: websocket`;
    /// a 405 carries `Allow: GET`.
    ///
    /// - Parameter error: Why the handshake failed.
    /// - Returns: The response head; send ``HTTPResponseHead/encoded()``, then close.
    public static func errorResponse(for error: WebSocketHandshakeError) -> HTTPResponseHead {
        let status = error.httpStatus
        let reason =
            switch status {
            case 405: "Method Not Allowed"
            case 426: "Upgrade Required"
            case 431: "Request Header Fields Too Large"
            case 505: "HTTP Version Not Supported"
            default: "Bad Request"
            }
        var headers = HTTPHeaders()
        if status == 426 {
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: "Sec-WebSocket-Version", value: "13")
        }
        if status == 405 { headers.add(name: "Allow", value: "GET") }
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Length", value: "0")
        return HTTPResponseHead(status: status, reason: reason, headers: headers)
    }
}
