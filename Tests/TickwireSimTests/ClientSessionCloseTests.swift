import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// After a reject or a disconnect the client session waits for the host's close, to learn its code.
@Suite("ClientSession close")
struct ClientSessionCloseTests {
    @Test("after a reject from a host that never closes, the session closes the connection itself after closeWait, not before")
    func closeWait() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        let game = DotsGame(orbCount: 1)
        let session = ClientSession(game: game, clock: clock)
        session.connect(over: network.connect())
        let server = try #require(network.acceptPending().first)
        server.send(try FrameCompressor.uncompressed().encode(.reject(Message.Reject(reason: .roomFull, text: "full"))))
        var serverEvents: [TransportEvent] = []
        for _ in 0..<190 {
            clock.advance(by: .milliseconds(5))
            session.receive()
            serverEvents += server.drain()
        }
        #expect(session.status == .rejected(.roomFull, "full"))
        #expect(!serverEvents.contains { if case .closed = $0 { true } else { false } }, "0.95 s after the reject the session still waits")
        for _ in 0..<20 {
            clock.advance(by: .milliseconds(5))
            session.receive()
            serverEvents += server.drain()
        }
        #expect(serverEvents.contains { if case .closed = $0 { true } else { false } }, "after 1 s the session closes")
        #expect(session.closeReason == nil, "the host sent no close, so there is no close code")
    }
}
