import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// A close reason is cut to 123 UTF-8 bytes at a character boundary (PROTOCOL.md 5.5), so that a
/// reject's text never splits a character and the peer never fails the close with 1007.
@Suite("Close reasons cut at a character boundary")
struct CloseReasonCutTests {
    @Test("a two-byte character across byte 123 is left out whole")
    func twoByteCharacter() {
        let text = String(repeating: "a", count: 122) + "é" + "bc"
        let cut = text.prefix(utf8Bytes: transportCloseReasonMaximumBytes)
        #expect(cut == String(repeating: "a", count: 122), "cut to \(cut.utf8.count) bytes")
    }

    @Test("a four-byte character ending at byte 123 is kept, one past it is not")
    func fourByteCharacter() {
        let fits = String(repeating: "a", count: 119) + "🚀"
        #expect(fits.prefix(utf8Bytes: 123) == fits)
        let over = String(repeating: "a", count: 120) + "🚀"
        #expect(over.prefix(utf8Bytes: 123) == String(repeating: "a", count: 120))
    }

    @Test("a host's close after a reject with a long multi-byte text carries a valid reason of at most 123 bytes")
    func rejectOverTheNetwork() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        let client = network.connect()
        let server = try #require(network.acceptPending().first)
        let text = String(repeating: "ü", count: 100)  // 200 bytes, every character two
        server.close(code: .roomFull, reason: text)
        var reason: TransportCloseReason?
        for _ in 0..<20 {
            clock.advance(by: .milliseconds(5))
            for event in client.drain() {
                if case .closed(let closed) = event { reason = closed }
            }
        }
        let closed = try #require(reason, "the client sees the close")
        #expect(closed.code == .roomFull)
        #expect(closed.text == String(repeating: "ü", count: 61), "61 whole characters, 122 bytes: \(closed.text.utf8.count)")
    }
}
