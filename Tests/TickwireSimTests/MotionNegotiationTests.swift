import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// Negotiating motion-predicted entropy deltas (PROTOCOL.md §4.5.6, §5.3, §5.4): bit 5 beside
/// bit 7 in the hello and the welcome, granted when the host has entropy deltas and prediction on.
@Suite("Motion prediction negotiation")
struct MotionNegotiationTests {
    @Test("the hello's bit 5 offers prediction beside bit 7; the welcome's bits 7 and 5 choose it; both re-encode byte for byte")
    func messageBits() throws {
        let hello = Message.Hello(
            schemaFingerprint: 7, compressionModes: [.perFrame], offersEntropyDeltas: true, offersMotionPrediction: true)
        let helloBody = try Message.hello(hello).encodeBody()
        #expect(helloBody[10] == 0xA1, "compression byte: perFrame, the entropy bit and the prediction bit")
        #expect(try Message(type: .hello, body: helloBody) == .hello(hello))
        let everything = Message.Hello(
            schemaFingerprint: 7, compressionModes: .all, offersEntropyDeltas: true, offersRenderTimes: true, offersMotionPrediction: true)
        #expect(try Message.hello(everything).encodeBody()[10] == 0xE3, "all modes, entropy, render times, prediction")
        let fromByte = Message.Hello(schemaFingerprint: 7, compressionModes: CompressionModes(rawValue: 0xA1))
        #expect(fromByte.offersMotionPrediction && fromByte.offersEntropyDeltas && fromByte.compressionModes == [.perFrame])
        #expect(try Message.hello(fromByte).encodeBody()[10] == 0xA1)

        let welcome = Message.Welcome(
            clientID: 1, tickRate: 20, currentTick: 0, serverTime: 0, compression: .perFrame, deltaCoding: .predictedEntropy)
        let welcomeBody = try Message.welcome(welcome).encodeBody()
        #expect(welcomeBody == [1, 20, 0, 0, 0xA1, 0])
        #expect(try Message(type: .welcome, body: welcomeBody) == .welcome(welcome))
        let withRenderTimes = try Message(type: .welcome, body: [1, 20, 0, 0, 0xE2, 0])
        guard case .welcome(let decoded) = withRenderTimes else {
            Issue.record("0xE2 should decode as a welcome, got \(withRenderTimes)")
            return
        }
        #expect(decoded.deltaCoding == .predictedEntropy && decoded.acceptsRenderTimes && decoded.compression == .streaming)
        #expect("\(withRenderTimes)".contains("predictedEntropy deltas"), "the description names the coding: \(withRenderTimes)")
        // Bit 5 without bit 7 names no coding: refused like an unknown mode.
        #expect(throws: FrameError.self) { try Message(type: .welcome, body: [1, 20, 0, 0, 0x21, 0]) }
        #expect(throws: FrameError.self) { try Message(type: .welcome, body: [1, 20, 0, 0, 0x20, 0]) }
    }

    /// One row of the negotiation matrix.
    struct Case: Sendable, CustomStringConvertible {
        var offersEntropy: Bool
        var offersPrediction: Bool
        var hostEntropy: Bool
        var hostPrediction: Bool
        var expected: DeltaCoding
        var description: String {
            "hello bit 7 \(offersEntropy), bit 5 \(offersPrediction); host entropy \(hostEntropy), prediction \(hostPrediction) → \(expected)"
        }
    }

    static let rows: [Case] = [
        Case(offersEntropy: true, offersPrediction: true, hostEntropy: true, hostPrediction: true, expected: .predictedEntropy),
        Case(offersEntropy: true, offersPrediction: true, hostEntropy: true, hostPrediction: false, expected: .entropy),
        Case(offersEntropy: true, offersPrediction: false, hostEntropy: true, hostPrediction: true, expected: .entropy),
        Case(offersEntropy: true, offersPrediction: false, hostEntropy: true, hostPrediction: false, expected: .entropy),
        Case(offersEntropy: true, offersPrediction: true, hostEntropy: false, hostPrediction: true, expected: .bitPacked),
        Case(offersEntropy: false, offersPrediction: true, hostEntropy: true, hostPrediction: true, expected: .bitPacked),
        Case(offersEntropy: false, offersPrediction: false, hostEntropy: true, hostPrediction: true, expected: .bitPacked),
    ]

    @Test("the welcome's coding and compression byte for each hello offer and host setting", arguments: rows)
    func matrix(_ row: Case) throws {
        let bench = RawClientBench {
            $0.entropyDeltas = row.hostEntropy
            $0.motionPrediction = row.hostPrediction
        }
        let hello = Message.Hello(
            schemaFingerprint: bench.game.schema.fingerprint, compressionModes: [], offersEntropyDeltas: row.offersEntropy,
            offersMotionPrediction: row.offersPrediction)
        let helloBody = try Message.hello(hello).encodeBody()
        #expect(helloBody[10] == (row.offersEntropy ? 0x80 : 0) | (row.offersPrediction ? 0x20 : 0), "the hello's compression byte")
        let client = bench.connect(sending: try FrameCompressor.uncompressed().encode(.hello(hello)))
        bench.run(milliseconds: 50, clients: [client])
        let welcome = try #require(client.welcome, "the host should welcome the client")
        #expect(welcome.deltaCoding == row.expected)
        let expectedByte: UInt8 = row.expected == .predictedEntropy ? 0xA0 : row.expected == .entropy ? 0x80 : 0x00
        #expect(try Message.welcome(welcome).encodeBody()[4] == expectedByte, "the welcome's compression byte")
    }

    @Test("a Swift client offers prediction with entropy: it gets predictedEntropy, or entropy from a host with prediction off")
    func swiftClient() {
        for hostPrediction in [true, false] {
            let simulation = Simulation(game: DotsGame(orbCount: 4)) {
                $0.entropyDeltas = true
                $0.motionPrediction = hostPrediction
            }
            let modern = simulation.addClient()
            let legacy = simulation.addClient(configure: { $0.offersEntropyDeltas = false })
            simulation.run(for: .milliseconds(500))
            #expect(simulation.clients[modern].deltaCoding == (hostPrediction ? .predictedEntropy : .entropy))
            #expect(simulation.clients[legacy].deltaCoding == .bitPacked)
            #expect(simulation.clients[modern].metrics.snapshotsUndecodable == 0)
        }
    }

    @Test("motion prediction is on by default, under entropy deltas (which are off by default)")
    func defaults() {
        let configuration = HostConfiguration()
        #expect(configuration.motionPrediction)
        #expect(!configuration.entropyDeltas)
        #expect(ClientConfiguration().offersEntropyDeltas)
    }
}
