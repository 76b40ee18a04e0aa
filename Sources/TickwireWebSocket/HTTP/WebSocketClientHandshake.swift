/// The client side of the WebSocket opening handshake (RFC 6455 section 4.1): build the
/// upgrade request with a fresh random key, then validate the server's response.
public struct WebSocketClientHandshake: Hashable, Sendable {
    /// What a successful handshake agreed.
    public struct Agreement: Hashable, Sendable {
        /// The subprotocol the server chose, or `nil`.
        public var subprotocol: String?
        /// The agreed permessage-deflate parameters, or `nil` for none.
        public var compression: PerMessageDeflateParameters?
    }

    /// The `Sec-WebSocket-Key` sent: Base64 of 16 random bytes.
    public let key: String
    /// The request head to send.
    public let request: HTTPRequestHead
    /// The subprotocols offered, preferred first.
    public let subprotocols: [String]
    /// The permessage-deflate offer, or `nil`.
    public let compression: PerMessageDeflateConfiguration?

    /// Builds an upgrade request with a key from `SystemRandomNumberGenerator`.
    ///
    /// - Parameters:
    ///   - host: The `Host` header value, e.g. `example.com:8080`.
    ///   - path: The request target, e.g. `/game?room=3`.
    ///   - subprotocols: Subprotocols to offer, preferred first.
    ///   - compression: permessage-deflate to offer, or `nil`.
    ///   - extraHeaders: Extra fields (e.g. `Origin`, `Authorization`).
    public init(
        host: String, path: String = "/", subprotocols: [String] = [],
        compression: PerMessageDeflateConfiguration? = nil, extraHeaders: HTTPHeaders = HTTPHeaders()
    ) {
        var generator = SystemRandomNumberGenerator()
        self.init(
            host: host, path: path, subprotocols: subprotocols, compression: compression,
            extraHeaders: extraHeaders, keyBytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Builds an upgrade request with the given key bytes (for tests that need a fixed key).
    ///
    /// - Parameters:
    ///   - host: The `Host` header value.
    ///   - path: The request target.
    ///   - subprotocols: Subprotocols to offer, preferred first.
    ///   - compression: permessage-deflate to offer, or `nil`.
    ///   - extraHeaders: Extra fields.
    ///   - keyBytes: The 16 bytes whose Base64 is the key.
    public init(
        host: String, path: String = "/", subprotocols: [String] = [],
        compression: PerMessageDeflateConfiguration? = nil, extraHeaders: HTTPHeaders = HTTPHeaders(), keyBytes: [UInt8]
    ) {
        key = Base64.encode(keyBytes)
        self.subprotocols = subprotocols
        self.compression = compression
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "Upgrade", value: "websocket")
        headers.add(name: "Connection", value: "Upgrade")
        headers.add(name: "Sec-WebSocket-Key", value: key)
        headers.add(name: "Sec-WebSocket-Version", value: "13")
        if !subprotocols.isEmpty { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", ")) }
        if let compression {
            headers.add(name: "Sec-WebSocket-Extensions", value: PerMessageDeflateNegotiation.clientOffer(compression).description)
        }
        headers.add(contentsOf: extraHeaders)
        request = HTTPRequestHead(method: "GET", target: path, headers: headers)
    }

    /// Validates the server's response head.
    ///
    /// - Parameter response: The parsed response head.
    /// - Returns: The agreed subprotocol and compression.
    /// - Throws: ``WebSocketHandshakeError`` for a status other than 101, a missing or wrong
    ///   `Upgrade`, `Connection` or `Sec-WebSocket-Accept`, or a subprotocol or extension
    ///   the client did not offer.
    public func validate(_ response: HTTPResponseHead) throws(WebSocketHandshakeError) -> Agreement {
        guard response.status == 101 else { throw .unexpectedStatus(response.status, reason: response.reason) }
        let headers = response.headers
        guard let upgrade = headers["Upgrade"] else { throw .missingHeader("Upgrade") }
        guard headers.containsToken("websocket", in: "Upgrade") else { throw .invalidHeader(name: "Upgrade", value: upgrade) }
        guard let connection = headers["Connection"] else { throw .missingHeader("Connection") }
        guard headers.containsToken("upgrade", in: "Connection") else {
            throw .invalidHeader(name: "Connection", value: connection)
        }
        guard let accept = headers["Sec-WebSocket-Accept"] else { throw .missingHeader("Sec-WebSocket-Accept") }
        let expected = WebSocketServerHandshake.acceptValue(forKey: key)
        guard accept == expected else { throw .acceptMismatch(expected: expected, received: accept) }

        var agreement = Agreement()
        let chosen = headers.listElements(for: "Sec-WebSocket-Protocol")
        if let first = chosen.first {
            guard chosen.count == 1, subprotocols.contains(first) else { throw .unexpectedSubprotocol(chosen.joined(separator: ", ")) }
            agreement.subprotocol = first
        }
        let extensionValues = headers.values(for: "Sec-WebSocket-Extensions")
        if !extensionValues.isEmpty {
            let joined = extensionValues.joined(separator: ", ")
            guard let elements = WebSocketExtensionElement.parseList(joined) else { throw .invalidExtensionResponse(joined) }
            if let element = elements.first {
                guard let compression else { throw .unexpectedExtension(element.name) }
                guard elements.count == 1 else { throw .invalidExtensionResponse("more than one extension: \(joined)") }
                agreement.compression = try PerMessageDeflateNegotiation.clientAccept(element, configuration: compression)
            }
        }
        return agreement
    }
}
