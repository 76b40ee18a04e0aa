import Testing
import TickwireSim
import TickwireWebSocket

@Suite("Tickwire close codes")
struct TickwireCloseCodeTests {
    @Test("Tickwire's application codes sit in 4000...4999 and are valid on the wire")
    func tickwireCodes() {
        let codes: [WebSocketCloseCode] = [
            .tickwireSchemaMismatch, .tickwireRoomFull, .tickwireKicked, .tickwireUnsupportedVersion,
            .tickwireMalformedFrame, .tickwireIdleTimeout, .tickwireRoomClosed,
        ]
        #expect(Set(codes.map(\.rawValue)).count == codes.count, "application codes must be distinct")
        #expect(codes.map(\.rawValue) == Array(4000...4006), "the codes are 4000...4006 in PROTOCOL.md's order")
        for code in codes {
            #expect((4000...4999).contains(code.rawValue) && code.isValidOnWire, "\(code) must be a private-use code")
        }
    }
}
