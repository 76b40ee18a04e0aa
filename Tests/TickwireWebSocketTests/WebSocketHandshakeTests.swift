import Testing

@testable import TickwireWebSocket

@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
    static let rfcRequest = """
        GET /chat HTTP/1.1\r
        Host: server.example.com\r
        Upgrade: websocket\r
        Connection: Upgrade\r
        Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
        Origin: http://example.com\r
        Sec-WebSocket-Protocol: chat, superchat\r
        Sec-WebSocket-Version: 13\r
        \r

        """

    func request(replacing name: String? = nil, with line: String? = nil, method: String = "GET", version: String = "HTTP/1.1") throws
        -> HTTPRequestHead
    {
        var lines = Self.rfcRequest.split(separator: "\r\n").map(String.init).filter { !$0.isEmpty }
        lines[0] = "\(method) /chat \(version)"
        if let name {
            lines.removeAll { $0.lowercased().hasPrefix(name.lowercased() + ":") }
        }
        if let line { lines.append(line) }
        let text = lines.joined(separator: "\r\n") + "\r\n\r\n"
        let parsed = try HTTPRequestHead.parse(Array(text.utf8))
        return try #require(parsed?.head, "the test request must parse")
    }

    @Test("the RFC 6455 example key gives the example accept value")
    func acceptValue() {
        #expect(
            WebSocketServerHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
            "RFC 6455 section 1.3: dGhlIHNhbXBsZSBub25jZQ== must map to s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("the RFC 6455 example request is accepted with the right 101 response")
    func rfcExample() throws {
        let parsed = try #require(try HTTPRequestHead.parse(Array(Self.rfcRequest.utf8) + [0x81, 0x80]))
        #expect(parsed.byteCount == Self.rfcRequest.utf8.count, "the head ends at the blank line; what follows is WebSocket data")
        #expect(parsed.head.method == "GET" && parsed.head.target == "/chat" && parsed.head.version == .http11)
        let accepted = try WebSocketServerHandshake.accept(parsed.head, configuration: .init(subprotocols: ["superchat", "chat"]))
        #expect(accepted.subprotocol == "superchat", "the server's preference order decides among offered subprotocols")
        #expect(accepted.response.status == 101)
        #expect(accepted.response.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let text = String(decoding: accepted.response.encoded(), as: UTF8.self)
        #expect(
            text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n") && text.hasSuffix("\r\n\r\n"), "the response must be well-formed HTTP")
        #expect(text.contains("Upgrade: websocket\r\n") && text.contains("Connection: Upgrade\r\n"))
    }

    @Test(
        "bad requests are refused with the right HTTP status",
        arguments: [
            ("Host", nil, 400, "missing Host"),
            ("Upgrade", nil, 426, "missing Upgrade"),
            ("Upgrade", "Upgrade: h2c", 400, "Upgrade is not websocket"),
            ("Connection", nil, 400, "missing Connection"),
            ("Connection", "Connection: keep-alive", 400, "Connection lacks upgrade"),
            ("Sec-WebSocket-Key", nil, 400, "missing key"),
            ("Sec-WebSocket-Key", "Sec-WebSocket-Key: c2hvcnQ=", 400, "key is not 16 bytes"),
            ("Sec-WebSocket-Key", "Sec-WebSocket-Key: not base64!!", 400, "key is not Base64"),
            ("Sec-WebSocket-Version", nil, 426, "missing version"),
            ("Sec-WebSocket-Version", "Sec-WebSocket-Version: 8", 426, "wrong version"),
        ] as [(String, String?, Int, String)])
    func badRequests(name: String, line: String?, status: Int, why: String) throws {
        let head = try request(replacing: name, with: line)
        do {
            _ = try WebSocketServerHandshake.accept(head)
            Issue.record("\(why): the request must be refused")
        } catch {
            #expect(error.httpStatus == status, "\(why) must be answered with \(status), not \(error.httpStatus) (\(error))")
            let response = WebSocketServerHandshake.errorResponse(for: error)
            #expect(response.status == status)
            if status == 426 {
                #expect(response.headers["Sec-WebSocket-Version"] == "13", "a 426 must say which version the server speaks")
            }
        }
    }

    @Test("wrong method and old HTTP versions are refused")
    func methodAndVersion() throws {
        #expect(throws: WebSocketHandshakeError.methodNotAllowed("POST")) {
            _ = try WebSocketServerHandshake.accept(try request(method: "POST"))
        }
        #expect(throws: WebSocketHandshakeError.unsupportedHTTPVersion(HTTPVersion(major: 1, minor: 0))) {
            _ = try WebSocketServerHandshake.accept(try request(version: "HTTP/1.0"))
        }
    }

    @Test("a required subprotocol that the client does not offer is refused")
    func requiredSubprotocol() throws {
        let config = WebSocketServerHandshake.Configuration(subprotocols: ["tickwire.v1"], requiresSubprotocol: true)
        #expect(throws: WebSocketHandshakeError.self) { _ = try WebSocketServerHandshake.accept(try request(), configuration: config) }
        let accepted = try WebSocketServerHandshake.accept(
            try request(replacing: "Sec-WebSocket-Protocol", with: "Sec-WebSocket-Protocol: tickwire.v1"), configuration: config)
        #expect(accepted.subprotocol == "tickwire.v1")
    }

    @Test("a truncated head is incomplete, not an error")
    func truncated() throws {
        let full = Array(Self.rfcRequest.utf8)
        for cut in [0, 1, 10, full.count - 2, full.count - 1] {
            #expect(try HTTPRequestHead.parse(Array(full[..<cut])) == nil, "\(cut) of \(full.count) bytes must ask for more")
        }
    }

    @Test("the head size limit holds at its value and fails one past it")
    func headLimit() throws {
        let full = Array(Self.rfcRequest.utf8)
        let exact = HTTPHeadLimits(maximumHeadBytes: full.count, maximumHeaderCount: 64)
        #expect(try HTTPRequestHead.parse(full, limits: exact) != nil, "a head of exactly the limit must parse")
        let tight = HTTPHeadLimits(maximumHeadBytes: full.count - 1, maximumHeaderCount: 64)
        #expect(throws: WebSocketHandshakeError.headTooLarge(limit: full.count - 1)) { _ = try HTTPRequestHead.parse(full, limits: tight) }
        // Endless header bytes without a blank line must fail once the limit is reached, not wait forever.
        let endless = Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 20_000)
        #expect(throws: WebSocketHandshakeError.headTooLarge(limit: 16 * 1024)) { _ = try HTTPRequestHead.parse(endless) }
        #expect(WebSocketHandshakeError.headTooLarge(limit: 1).httpStatus == 431)
    }

    @Test("the header count limit holds at its value and fails one past it")
    func headerCount() throws {
        func head(fields: Int) -> [UInt8] {
            Array(("GET / HTTP/1.1\r\n" + (0..<fields).map { "X-\($0): v\r\n" }.joined() + "\r\n").utf8)
        }
        let limits = HTTPHeadLimits(maximumHeadBytes: 16 * 1024, maximumHeaderCount: 10)
        #expect(try HTTPRequestHead.parse(head(fields: 10), limits: limits)?.head.headers.count == 10, "10 fields fit a limit of 10")
        #expect(throws: WebSocketHandshakeError.tooManyHeaders(count: 11, limit: 10)) {
            _ = try HTTPRequestHead.parse(head(fields: 11), limits: limits)
        }
    }

    @Test(
        "malformed heads are refused",
        arguments: [
            "GET /\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/x.1\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET / HTTP/1.1\r\nBad Name: v\r\n\r\n", "GET / HTTP/1.1\r\n folded: v\r\n\r\n", "GET / HTTP/1.1\r\nX: a\u{0}b\r\n\r\n",
            "GET / HTTP/1.1\r\nX: a\nY: b\r\n\r\n", "\r\n\r\n",
        ])
    func malformed(text: String) {
        #expect(throws: WebSocketHandshakeError.self, "\(text.debugDescription) is not a valid head") {
            _ = try HTTPRequestHead.parse(Array(text.utf8))
        }
    }

    @Test("a client request validates against a server built from it, end to end")
    func clientServerRoundTrip() throws {
        let client = WebSocketClientHandshake(
            host: "localhost:9001", path: "/game", subprotocols: ["tickwire.v1"],
            compression: PerMessageDeflateConfiguration())
        #expect(Base64.decode(client.key)?.count == 16, "the key must be Base64 of 16 bytes")
        let parsed = try #require(try HTTPRequestHead.parse(client.request.encoded()))
        let accepted = try WebSocketServerHandshake.accept(
            parsed.head, configuration: .init(subprotocols: ["tickwire.v1"], compression: PerMessageDeflateConfiguration()))
        let response = try #require(try HTTPResponseHead.parse(accepted.response.encoded()))
        let agreement = try client.validate(response.head)
        #expect(agreement.subprotocol == "tickwire.v1")
        #expect(
            agreement.compression != nil
                && agreement.compression
                    == accepted.compression.map {
                        var p = $0
                        p.compressionLevel = 6
                        return p
                    },
            "both sides must agree on the same permessage-deflate parameters")
    }

    @Test("two client handshakes use different random keys")
    func freshKeys() {
        let first = WebSocketClientHandshake(host: "h")
        let second = WebSocketClientHandshake(host: "h")
        #expect(first.key != second.key, "each handshake needs a fresh nonce")
    }

    @Test("a client refuses bad server responses")
    func clientRefuses() throws {
        let client = WebSocketClientHandshake(host: "h", subprotocols: ["a"], keyBytes: Array(repeating: 1, count: 16))
        let good = try #require(
            try HTTPRequestHead.parse(client.request.encoded()).map {
                try WebSocketServerHandshake.accept($0.head, configuration: .init(subprotocols: ["a"])).response
            })
        #expect(try client.validate(good).subprotocol == "a")
        var wrongStatus = good
        wrongStatus.status = 200
        #expect(throws: WebSocketHandshakeError.unexpectedStatus(200, reason: "Switching Protocols")) {
            _ = try client.validate(wrongStatus)
        }
        var wrongAccept = good
        wrongAccept.headers = HTTPHeaders(
            dictionaryLiteral: ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        #expect(throws: WebSocketHandshakeError.self, "an accept value for another key must be refused") {
            _ = try client.validate(wrongAccept)
        }
        var wrongProtocol = good
        wrongProtocol.headers.add(name: "Sec-WebSocket-Protocol", value: "b")
        #expect(throws: WebSocketHandshakeError.self, "a subprotocol the client did not offer must be refused") {
            _ = try client.validate(wrongProtocol)
        }
        var unofferedExtension = good
        unofferedExtension.headers.add(name: "Sec-WebSocket-Extensions", value: "permessage-deflate")
        #expect(throws: WebSocketHandshakeError.unexpectedExtension("permessage-deflate")) { _ = try client.validate(unofferedExtension) }
    }

    @Test("response heads parse with and without a reason phrase")
    func responseParsing() throws {
        let head = try #require(try HTTPResponseHead.parse(Array("HTTP/1.1 101\r\nUpgrade: websocket\r\n\r\n".utf8)))
        #expect(head.head.status == 101 && head.head.reason == "" && head.head.headers["upgrade"] == "websocket")
        #expect(throws: WebSocketHandshakeError.self) { _ = try HTTPResponseHead.parse(Array("HTTP/1.1 1O1 OK\r\n\r\n".utf8)) }
    }

    @Test("browser variants are accepted: Connection lists, header case, repeated protocol lines")
    func browserVariants() throws {
        let text =
            "GET /x HTTP/1.1\r\nhost: a\r\nupgrade: WebSocket\r\nconnection: keep-alive, Upgrade\r\n"
            + "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n"
            + "Sec-WebSocket-Protocol: x\r\nSec-WebSocket-Protocol: tickwire.v1\r\n\r\n"
        let head = try #require(try HTTPRequestHead.parse(Array(text.utf8))?.head)
        let accepted = try WebSocketServerHandshake.accept(head, configuration: .init(subprotocols: ["tickwire.v1"]))
        #expect(accepted.subprotocol == "tickwire.v1", "a subprotocol offered on a second header line still counts")
    }
}
