/// What an endpoint wants from permessage-deflate (RFC 7692); a client turns it into its
/// offer, a server uses it to answer offers.
///
/// Window sizes are 9...15 bits: zlib cannot deflate with an 8-bit (256-byte) window, so
/// Tickwire never agrees to *send* with one. A server declines an offer that demands
/// `server_max_window_bits=8` (and considers the client's next offer); a client fails the
/// handshake if a server demands `client_max_window_bits=8`. Receiving from a peer that
/// uses 8 bits is fine: an inflater with a larger window reads it.
public struct PerMessageDeflateConfiguration: Hashable, Sendable {
    /// Whether the server resets its compression history after every message.
    /// A client requests it in its offer; a server applies it to itself even unasked.
    public var serverNoContextTakeover: Bool
    /// Whether the client resets its compression history after every message.
    /// A client announces it in its offer; a server requests it in its response.
    public var clientNoContextTakeover: Bool
    /// The server's LZ77 window, 9...15 bits. A client requests it if below 15; a server
    /// never uses more, and a client's request may lower it further.
    public var serverMaxWindowBits: Int
    /// The client's LZ77 window, 9...15 bits. A client offers it; a server asks the client
    /// for at most this much (only possible when the client offered `client_max_window_bits`).
    public var clientMaxWindowBits: Int
    /// The zlib compression level for sending, 0...9.
    public var compressionLevel: Int
    /// zlib's `memLevel` for sending, 1...9.
    public var memoryLevel: Int

    /// Creates a configuration; out-of-range window bits are clamped to 9...15.
    ///
    /// - Parameters:
    ///   - serverNoContextTakeover: Whether the server resets its history per message.
    ///   - clientNoContextTakeover: Whether the client resets its history per message.
    ///   - serverMaxWindowBits: The server's window, 9...15.
    ///   - clientMaxWindowBits: The client's window, 9...15.
    ///   - compressionLevel: zlib level, 0...9.
    ///   - memoryLevel: zlib memLevel, 1...9.
    public init(
        serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15,
        compressionLevel: Int = 6, memoryLevel: Int = 8
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = min(max(serverMaxWindowBits, 9), 15)
        self.clientMaxWindowBits = min(max(clientMaxWindowBits, 9), 15)
        self.compressionLevel = min(max(compressionLevel, 0), 9)
        self.memoryLevel = min(max(memoryLevel, 1), 9)
    }
}

/// The permessage-deflate settings both ends agreed in the handshake; pass them to
/// ``WebSocketProtocolMachine/init(role:configuration:compression:maskingKeys:)``.
public struct PerMessageDeflateParameters: Hashable, Sendable {
    /// The server resets its compression history after every message (the client its inflater).
    public var serverNoContextTakeover: Bool
    /// The client resets its compression history after every message (the server its inflater).
    public var clientNoContextTakeover: Bool
    /// The server's window in bits, 8...15 (8 only as a receiver-side fact; see ``PerMessageDeflateConfiguration``).
    public var serverMaxWindowBits: Int
    /// The client's window in bits, 8...15.
    public var clientMaxWindowBits: Int
    /// The zlib level this endpoint compresses with (local, not negotiated).
    public var compressionLevel: Int
    /// zlib's `memLevel` this endpoint compresses with (local, not negotiated).
    public var memoryLevel: Int

    /// Creates agreed parameters.
    ///
    /// - Parameters:
    ///   - serverNoContextTakeover: Whether the server resets its history per message.
    ///   - clientNoContextTakeover: Whether the client resets its history per message.
    ///   - serverMaxWindowBits: The server's window, 8...15.
    ///   - clientMaxWindowBits: The client's window, 8...15.
    ///   - compressionLevel: Local zlib level.
    ///   - memoryLevel: Local zlib memLevel.
    public init(
        serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15,
        compressionLevel: Int = 6, memoryLevel: Int = 8
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
    }
}

/// The permessage-deflate negotiation of RFC 7692 section 7.1, for both ends.
package enum PerMessageDeflateNegotiation {
    /// The extension's registered name.
    package static let extensionName = "permessage-deflate"

    /// The offer a client sends for `configuration`.
    ///
    /// Always includes a bare or valued `client_max_window_bits`, telling the server that
    /// the client supports the parameter.
    ///
    /// - Parameter configuration: What the client wants.
    /// - Returns: The extension element for the `Sec-WebSocket-Extensions` request header.
    package static func clientOffer(_ configuration: PerMessageDeflateConfiguration) -> WebSocketExtensionElement {
        var element = WebSocketExtensionElement(name: extensionName)
        if configuration.serverNoContextTakeover { element.parameters.append(.init(name: "server_no_context_takeover")) }
        if configuration.clientNoContextTakeover { element.parameters.append(.init(name: "client_no_context_takeover")) }
        if configuration.serverMaxWindowBits < 15 {
            element.parameters.append(.init(name: "server_max_window_bits", value: String(configuration.serverMaxWindowBits)))
        }
        element.parameters.append(
            .init(
                name: "client_max_window_bits",
                value: configuration.clientMaxWindowBits < 15 ? String(configuration.clientMaxWindowBits) : nil
            ))
        return element
    }

    /// Picks the first acceptable permessage-deflate offer and builds the server's answer.
    ///
    /// Offers with unknown or repeated parameters, bad values, or a demand for
    /// `server_max_window_bits=8` are declined and the next offer is tried.
    ///
    /// - Parameters:
    ///   - offers: The client's `Sec-WebSocket-Extensions` elements, in its order of preference.
    ///   - configuration: What the server wants.
    /// - Returns: The agreed parameters and the response element, or `nil` to run without compression.
    package static func serverResponse(
        to offers: [WebSocketExtensionElement], configuration: PerMessageDeflateConfiguration
    ) -> (parameters: PerMessageDeflateParameters, response: WebSocketExtensionElement)? {
        for offer in offers where offer.name == extensionName {
            guard let fields = Fields(offer.parameters) else { continue }
            var agreed = PerMessageDeflateParameters(
                compressionLevel: configuration.compressionLevel, memoryLevel: configuration.memoryLevel
            )
            var response = WebSocketExtensionElement(name: extensionName)
            agreed.serverNoContextTakeover = fields.serverNoContextTakeover || configuration.serverNoContextTakeover
            agreed.clientNoContextTakeover = fields.clientNoContextTakeover || configuration.clientNoContextTakeover
            if agreed.serverNoContextTakeover { response.parameters.append(.init(name: "server_no_context_takeover")) }
            if agreed.clientNoContextTakeover { response.parameters.append(.init(name: "client_no_context_takeover")) }

            switch fields.serverMaxWindowBits {
            case .some(.some(let requested)):
                // We may answer with the same or a smaller window, never below 9: decline 8.
                guard requested >= 9 else { continue }
                agreed.serverMaxWindowBits = min(requested, configuration.serverMaxWindowBits)
                response.parameters.append(.init(name: "server_max_window_bits", value: String(agreed.serverMaxWindowBits)))
            case .some(.none):
                continue  // server_max_window_bits must carry a value in an offer
            case .none:
                agreed.serverMaxWindowBits = configuration.serverMaxWindowBits
                if agreed.serverMaxWindowBits < 15 {
                    response.parameters.append(.init(name: "server_max_window_bits", value: String(agreed.serverMaxWindowBits)))
                }
            }

            switch fields.clientMaxWindowBits {
            case .some(let offered):
                // The client supports the parameter; its value (if any) is the most it will use.
                agreed.clientMaxWindowBits = min(offered ?? 15, configuration.clientMaxWindowBits)
                if agreed.clientMaxWindowBits < 15 {
                    response.parameters.append(.init(name: "client_max_window_bits", value: String(agreed.clientMaxWindowBits)))
                }
            case .none:
                agreed.clientMaxWindowBits = 15  // the client did not offer to limit its window
            }
            return (agreed, response)
        }
        return nil
    }

    /// Checks a server's answer to `configuration`'s offer and returns the agreed parameters.
    ///
    /// - Parameters:
    ///   - response: The one extension element of the server's `Sec-WebSocket-Extensions`.
    ///   - configuration: What the client offered.
    /// - Returns: The agreed parameters.
    /// - Throws: ``WebSocketHandshakeError`` when the answer is malformed, exceeds the
    ///   offer, or demands an 8-bit client window zlib cannot produce.
    package static func clientAccept(
        _ response: WebSocketExtensionElement, configuration: PerMessageDeflateConfiguration
    ) throws(WebSocketHandshakeError) -> PerMessageDeflateParameters {
        guard response.name == extensionName else { throw .unexpectedExtension(response.name) }
        guard let fields = Fields(response.parameters) else { throw .invalidExtensionResponse(response.description) }
        var agreed = PerMessageDeflateParameters(
            compressionLevel: configuration.compressionLevel, memoryLevel: configuration.memoryLevel
        )
        if configuration.serverNoContextTakeover && !fields.serverNoContextTakeover {
            throw .invalidExtensionResponse("server did not accept server_no_context_takeover")
        }
        agreed.serverNoContextTakeover = fields.serverNoContextTakeover
        agreed.clientNoContextTakeover = fields.clientNoContextTakeover || configuration.clientNoContextTakeover
        switch fields.serverMaxWindowBits {
        case .some(.some(let bits)):
            if configuration.serverMaxWindowBits < 15 && bits > configuration.serverMaxWindowBits {
                throw .invalidExtensionResponse("server_max_window_bits=\(bits) exceeds the requested \(configuration.serverMaxWindowBits)")
            }
            agreed.serverMaxWindowBits = bits
        case .some(.none):
            throw .invalidExtensionResponse("server_max_window_bits without a value")
        case .none:
            if configuration.serverMaxWindowBits < 15 {
                throw .invalidExtensionResponse("server did not accept server_max_window_bits=\(configuration.serverMaxWindowBits)")
            }
            agreed.serverMaxWindowBits = 15
        }
        switch fields.clientMaxWindowBits {
        case .some(.some(let bits)):
            if bits > configuration.clientMaxWindowBits {
                throw .invalidExtensionResponse("client_max_window_bits=\(bits) exceeds the offered \(configuration.clientMaxWindowBits)")
            }
            if bits < 9 {
                throw .invalidExtensionResponse("client_max_window_bits=\(bits): zlib cannot compress with a window under 9 bits")
            }
            agreed.clientMaxWindowBits = bits
        case .some(.none):
            throw .invalidExtensionResponse("client_max_window_bits without a value")
        case .none:
            agreed.clientMaxWindowBits = configuration.clientMaxWindowBits
        }
        return agreed
    }

    /// The four parameters of RFC 7692, read from an element; `nil` when any is unknown,
    /// repeated, or has a malformed value.
    struct Fields {
        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        /// `nil`: absent; `.some(nil)`: present without a value; `.some(n)`: value n in 8...15.
        var serverMaxWindowBits: Int??
        var clientMaxWindowBits: Int??

        init?(_ parameters: [WebSocketExtensionElement.Parameter]) {
            var seen: Set<String> = []
            for parameter in parameters {
                guard seen.insert(parameter.name).inserted else { return nil }
                switch parameter.name {
                case "server_no_context_takeover":
                    guard parameter.value == nil else { return nil }
                    serverNoContextTakeover = true
                case "client_no_context_takeover":
                    guard parameter.value == nil else { return nil }
                    clientNoContextTakeover = true
                case "server_max_window_bits":
                    guard let value = parameter.value else {
                        serverMaxWindowBits = .some(nil)
                        continue
                    }
                    guard let bits = Self.windowBits(value) else { return nil }
                    serverMaxWindowBits = .some(bits)
                case "client_max_window_bits":
                    guard let value = parameter.value else {
                        clientMaxWindowBits = .some(nil)
                        continue
                    }
                    guard let bits = Self.windowBits(value) else { return nil }
                    clientMaxWindowBits = .some(bits)
                default:
                    return nil
                }
            }
        }

        /// A window-bits value: decimal 8...15 without leading zeros.
        static func windowBits(_ text: String) -> Int? {
            guard let first = text.utf8.first, first != UInt8(ascii: "0"),
                text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int(text), (8...15).contains(value)
            else { return nil }
            return value
        }
    }
}
