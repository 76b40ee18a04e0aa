import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// A welcome may choose only what the hello offered, and must decode (PROTOCOL.md 5.4): the
/// session closes with 4004 (malformed frame) otherwise.
@Suite("ClientSession and the welcome's choices")
struct ClientSessionWelcomeTests {
    /// The close code the server sees after the session, configured by `configure`, receives `frame` as its first frame.
    static func closeCode(receiving frame: [UInt8], configure: (inout ClientConfiguration) -> Void = { _ in }) throws -> (
        ClientSession<DotsGame>, CloseCode?
    ) {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        var configuration = ClientConfiguration()
        configure(&configuration)
        let session = ClientSession(game: DotsGame(orbCount: 1), clock: clock, configuration: configuration)
        session.connect(over: network.connect())
        let server = try #require(network.acceptPending().first)
        server.send(frame)
        var code: CloseCode?
        for _ in 0..<20 {
            clock.advance(by: .milliseconds(5))
            session.receive()
            for event in server.drain() {
                if case .closed(let reason) = event { code = reason.code }
            }
        }
        return (session, code)
    }

    static func welcome(compression: CompressionMode = .none, coding: DeltaCoding = .bitPacked, renderTimes: Bool = false) throws
        -> [UInt8]
    {
        let welcome = Message.Welcome(
            clientID: 7, tickRate: 20, currentTick: 1_000, serverTime: 40_000_000, compression: compression,
            deltaCoding: coding, acceptsRenderTimes: renderTimes)
        return try FrameCompressor.uncompressed().encode(.welcome(welcome))
    }

    @Test("a welcome choosing only what the hello offered connects")
    func offered() throws {
        let (session, code) = try Self.closeCode(receiving: try Self.welcome(compression: .streaming, renderTimes: true))
        #expect(session.status == .connected && code == nil, "\(session.status)")
    }

    @Test("a welcome choosing entropy-coded deltas the hello did not offer is closed with 4004")
    func unofferedCoding() throws {
        let (session, code) = try Self.closeCode(receiving: try Self.welcome(coding: .entropy)) { $0.offersEntropyDeltas = false }
        #expect(code == .malformedFrame, "\(session.status)")
    }

    @Test("a welcome accepting render times the hello did not offer (bit 6) is closed with 4004")
    func unsolicitedRenderTimes() throws {
        let (session, code) = try Self.closeCode(receiving: try Self.welcome(renderTimes: true)) { $0.offersRenderTimes = false }
        #expect(code == .malformedFrame, "\(session.status)")
    }

    @Test("a welcome choosing a compression mode the hello did not offer is closed with 4004")
    func unofferedMode() throws {
        let (session, code) = try Self.closeCode(receiving: try Self.welcome(compression: .streaming)) { $0.compressionModes = [.perFrame] }
        #expect(code == .malformedFrame, "\(session.status)")
    }

    @Test("a welcome with bit 5 and not bit 7 does not decode, and is closed with 4004")
    func predictionWithoutEntropy() throws {
        // vectors/frame-error-welcome-prediction-without-entropy.hex
        let frame: [UInt8] = [0x02, 0x07, 0x3C, 0xE8, 0x07, 0x90, 0x9B, 0xF9, 0x07, 0x20, 0x00]
        let (session, code) = try Self.closeCode(receiving: frame)
        #expect(code == .malformedFrame, "\(session.status)")
    }
}
