import Testing

@testable import TickwireWebSocket

@Suite("PerMessageDeflate negotiation")
struct PerMessageDeflateTests {
    func offers(_ header: String) throws -> [WebSocketExtensionElement] {
        try #require(WebSocketExtensionElement.parseList(header), "'\(header)' must parse as an extension list")
    }

    /// (client offer header, server response header or nil when declined).
    static let serverMatrix: [(String, String?)] = [
        ("permessage-deflate", "permessage-deflate"),
        ("permessage-deflate; client_max_window_bits", "permessage-deflate"),
        ("permessage-deflate; server_no_context_takeover", "permessage-deflate; server_no_context_takeover"),
        ("permessage-deflate; client_no_context_takeover", "permessage-deflate; client_no_context_takeover"),
        ("permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_max_window_bits=10"),
        ("permessage-deflate; server_max_window_bits=9", "permessage-deflate; server_max_window_bits=9"),
        ("permessage-deflate; server_max_window_bits=8", nil),
        ("permessage-deflate; server_max_window_bits=8, permessage-deflate; client_max_window_bits", "permessage-deflate"),
        ("permessage-deflate; client_max_window_bits=8", "permessage-deflate; client_max_window_bits=8"),
        ("permessage-deflate; client_max_window_bits=12", "permessage-deflate; client_max_window_bits=12"),
        ("permessage-deflate; client_max_window_bits=\"12\"", "permessage-deflate; client_max_window_bits=12"),
        ("permessage-deflate; client_max_window_bits=15", "permessage-deflate"),
        (
            "permessage-deflate;server_no_context_takeover;client_no_context_takeover;server_max_window_bits=11;client_max_window_bits=13",
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=11; client_max_window_bits=13"
        ),
        ("permessage-deflate; server_max_window_bits", nil),
        ("permessage-deflate; server_max_window_bits=16", nil),
        ("permessage-deflate; server_max_window_bits=7", nil),
        ("permessage-deflate; server_max_window_bits=010", nil),
        ("permessage-deflate; client_max_window_bits=abc", nil),
        ("permessage-deflate; server_no_context_takeover=1", nil),
        ("permessage-deflate; server_no_context_takeover; server_no_context_takeover", nil),
        ("permessage-deflate; mystery", nil),
        ("x-webkit-deflate-frame", nil),
        ("x-webkit-deflate-frame, permessage-deflate", "permessage-deflate"),
    ]

    @Test("server negotiation matrix with the default server configuration", arguments: 0..<23)
    func serverMatrix(index: Int) throws {
        let (offer, expected) = Self.serverMatrix[index]
        let result = PerMessageDeflateNegotiation.serverResponse(to: try offers(offer), configuration: PerMessageDeflateConfiguration())
        #expect(result?.response.description == expected, "offer '\(offer)' must be answered with \(expected ?? "a decline")")
    }

    @Test("a server's own settings shape its answer")
    func serverSettings() throws {
        let config = PerMessageDeflateConfiguration(
            serverNoContextTakeover: true, clientNoContextTakeover: true,
            serverMaxWindowBits: 12, clientMaxWindowBits: 10)
        let withClientBits = try #require(
            PerMessageDeflateNegotiation.serverResponse(
                to: try offers("permessage-deflate; client_max_window_bits"), configuration: config))
        #expect(
            withClientBits.response.description
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=12; client_max_window_bits=10"
        )
        #expect(withClientBits.parameters.serverMaxWindowBits == 12 && withClientBits.parameters.clientMaxWindowBits == 10)
        let without = try #require(
            PerMessageDeflateNegotiation.serverResponse(
                to: try offers("permessage-deflate; server_max_window_bits=14"), configuration: config))
        #expect(
            without.parameters.clientMaxWindowBits == 15,
            "without client_max_window_bits in the offer the server cannot limit the client's window")
        #expect(without.parameters.serverMaxWindowBits == 12, "the smaller of requested 14 and configured 12 wins")
    }

    /// (client configuration, server response header, whether the client accepts it).
    static let clientMatrix: [(PerMessageDeflateConfiguration, String, Bool)] = [
        (.init(), "permessage-deflate", true),
        (.init(), "permessage-deflate; server_no_context_takeover", true),
        (.init(), "permessage-deflate; client_no_context_takeover", true),
        (.init(), "permessage-deflate; server_max_window_bits=8", true),
        (.init(), "permessage-deflate; client_max_window_bits=9", true),
        (.init(), "permessage-deflate; client_max_window_bits=8", false),
        (.init(clientMaxWindowBits: 10), "permessage-deflate; client_max_window_bits=11", false),
        (.init(serverNoContextTakeover: true), "permessage-deflate", false),
        (.init(serverNoContextTakeover: true), "permessage-deflate; server_no_context_takeover", true),
        (.init(serverMaxWindowBits: 10), "permessage-deflate", false),
        (.init(serverMaxWindowBits: 10), "permessage-deflate; server_max_window_bits=12", false),
        (.init(serverMaxWindowBits: 10), "permessage-deflate; server_max_window_bits=9", true),
        (.init(), "permessage-deflate; mystery", false),
        (.init(), "permessage-deflate; server_max_window_bits", false),
        (.init(), "x-webkit-deflate-frame", false),
    ]

    @Test("client validation matrix of server answers", arguments: 0..<15)
    func clientMatrix(index: Int) throws {
        let (config, answer, accepted) = Self.clientMatrix[index]
        let element = try #require(try offers(answer).first)
        let result = Result { () throws(WebSocketHandshakeError) in
            try PerMessageDeflateNegotiation.clientAccept(element, configuration: config)
        }
        #expect(((try? result.get()) != nil) == accepted, "answer '\(answer)' must be \(accepted ? "accepted" : "refused") for \(config)")
    }

    @Test("client offers say what the configuration wants")
    func clientOffers() {
        #expect(PerMessageDeflateNegotiation.clientOffer(.init()).description == "permessage-deflate; client_max_window_bits")
        #expect(
            PerMessageDeflateNegotiation.clientOffer(
                .init(
                    serverNoContextTakeover: true, clientNoContextTakeover: true,
                    serverMaxWindowBits: 10, clientMaxWindowBits: 9)
            ).description
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=9"
        )
    }

    @Test("every client offer is accepted by the server and the answer by the client, with equal parameters")
    func bothEnds() throws {
        for serverNCT in [false, true] {
            for clientNCT in [false, true] {
                for bits in [9, 12, 15] {
                    let config = PerMessageDeflateConfiguration(
                        serverNoContextTakeover: serverNCT, clientNoContextTakeover: clientNCT,
                        serverMaxWindowBits: bits, clientMaxWindowBits: bits)
                    let offer = PerMessageDeflateNegotiation.clientOffer(config)
                    let server = try #require(PerMessageDeflateNegotiation.serverResponse(to: [offer], configuration: .init()))
                    let client = try PerMessageDeflateNegotiation.clientAccept(server.response, configuration: config)
                    #expect(client == server.parameters, "both ends must agree for \(config)")
                }
            }
        }
    }

    @Test("extension header lists parse tokens, parameters and quoted strings")
    func extensionParsing() throws {
        let list = try offers(" permessage-deflate ; client_max_window_bits , foo; bar=\"b\\\"az\", , x")
        #expect(list.map(\.name) == ["permessage-deflate", "foo", "x"])
        #expect(list[0].parameters == [.init(name: "client_max_window_bits")])
        #expect(list[1].parameters == [.init(name: "bar", value: "b\"az")])
        for bad in ["permessage-deflate;", "a b", "a; =1", "a; b=\"open", "a; b=", "a;;b"] {
            #expect(WebSocketExtensionElement.parseList(bad) == nil, "'\(bad)' breaks the grammar")
        }
    }
}
