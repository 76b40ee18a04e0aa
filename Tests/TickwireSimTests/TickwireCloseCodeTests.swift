import Testing
import TickwireSim

@Suite("Tickwire close codes")
struct TickwireCloseCodeTests {
    @Test("Tickwire's application codes sit in 4000...4999 and are valid on the wire")
    func tickwireCodes() {
        let codes: [CloseCode] = [
            .schemaMismatch, .roomFull, .kicked, .unsupportedVersion,
            .malformedFrame, .idleTimeout, .roomClosed,
        ]
        #expect(Set(codes.map(\.rawValue)).count == codes.count, "application codes must be distinct")
        #expect(codes.map(\.rawValue) == Array(4000...4006), "the codes are 4000...4006 in PROTOCOL.md's order")
        for code in codes {
            #expect((4000...4999).contains(code.rawValue), "\(code) must be a private-use code (RFC 6455 7.4.2)")
        }
    }

    @Test("a close code takes RFC 6455's range, 1000...4999, and nothing outside it")
    func range() {
        #expect(CloseCode(rawValue: 999) == nil && CloseCode(rawValue: 5000) == nil, "outside 1000...4999 is no close code")
        #expect(CloseCode(rawValue: 1000) == .normalClosure && CloseCode(rawValue: 4999)?.rawValue == 4999)
        #expect(CloseCode(rawValue: 3100)?.description == "3100", "a code without a name reads as its number")
        #expect(CloseCode.roomFull.description == "4001 room full")
    }
}
