import Testing

@testable import TickwireWebSocket

@Suite("WebSocketCloseCode")
struct WebSocketCloseCodeTests {
    @Test(
        "codes valid on the wire are accepted (Autobahn 7.7.x)",
        arguments: [
            1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999,
        ] as [UInt16])
    func valid(code: UInt16) throws {
        #expect(WebSocketCloseCode.isValidOnWire(code), "\(code) may appear in a close frame")
        let frame = try WebSocketProtocolMachine.parseClosePayload([UInt8(code >> 8), UInt8(code & 0xFF)] + Array("ok".utf8))
        #expect(frame.code?.rawValue == code && frame.reason == "ok", "the close payload must parse to code \(code) and its reason")
    }

    @Test(
        "codes invalid on the wire are refused with 1002 (Autobahn 7.9.x)",
        arguments: [
            0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535,
        ] as [UInt16])
    func invalid(code: UInt16) {
        #expect(!WebSocketCloseCode.isValidOnWire(code), "\(code) must not appear in a close frame")
        #expect(throws: WebSocketError.invalidCloseCode(code)) {
            _ = try WebSocketProtocolMachine.parseClosePayload([UInt8(code >> 8), UInt8(code & 0xFF)])
        }
        #expect(WebSocketError.invalidCloseCode(code).closeCode == .protocolError)
    }

    @Test("close payload rules: empty is fine, one byte is not, the reason must be UTF-8")
    func payloadRules() throws {
        #expect(try WebSocketProtocolMachine.parseClosePayload([]) == WebSocketCloseFrame(code: nil), "an empty close has no code")
        #expect(WebSocketCloseFrame(code: nil).effectiveCode == .noStatusReceived, "no code is reported as 1005")
        #expect(throws: WebSocketError.invalidCloseFrameLength) { _ = try WebSocketProtocolMachine.parseClosePayload([0x03]) }
        #expect(throws: WebSocketError.invalidUTF8, "a reason that is not UTF-8 fails with 1007") {
            _ = try WebSocketProtocolMachine.parseClosePayload([
                0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80,
            ])
        }
        #expect(WebSocketError.invalidUTF8.closeCode == .invalidFramePayloadData)
    }

    @Test("close codes exist for 1000...4999 only")
    func closeCodeRange() {
        #expect(
            WebSocketCloseCode(rawValue: 999) == nil && WebSocketCloseCode(rawValue: 5000) == nil, "outside 1000...4999 is no close code")
    }
}
