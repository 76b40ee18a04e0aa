import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// Negotiating entropy-coded deltas (PROTOCOL.md §5.3, §5.4): only for clients that offer them.
@Suite("Entropy delta negotiation")
struct EntropyNegotiationTests {
    @Test("the hello's bit 7 offers entropy deltas and the welcome's bit 7 chooses them; both re-encode byte for byte")
    func messageBits() throws {
        let hello = Message.Hello(schemaFingerprint: 7, compressionModes: [.perFrame], offersEntropyDeltas: true)
        let helloBody = try Message.hello(hello).encodeBody()
        #expect(helloBody[10] == 0x81, "compression byte: perFrame and the entropy bit")
        #expect(try Message(type: .hello, body: helloBody) == .hello(hello))
        let old = Message.Hello(schemaFingerprint: 7, compressionModes: [.perFrame])
        #expect(try Message.hello(old).encodeBody()[10] == 0x01, "a hello that does not offer them is a version 1 hello")
        let welcome = Message.Welcome(
            clientID: 1, tickRate: 20, currentTick: 0, serverTime: 0, compression: .perFrame, deltaCoding: .entropy)
        let welcomeBody = try Message.welcome(welcome).encodeBody()
        #expect(welcomeBody == [1, 20, 0, 0, 0x81, 0])
        #expect(try Message(type: .welcome, body: welcomeBody) == .welcome(welcome))
        // A version 1 client refuses that byte: the host sends it only to clients that offered.
        #expect(throws: FrameError.self) { try Message(type: .welcome, body: [1, 20, 0, 0, 0x83, 0]) }
    }

    @Test("a client that offers entropy deltas gets them; a version 1 client (no offer) gets bit-packed deltas; both see the world")
    func negotiation() throws {
        // Prediction off: plain entropy deltas (MotionNegotiationTests covers the predicted form).
        let simulation = Simulation(
            game: DotsGame(orbCount: 30),
            configure: {
                $0.entropyDeltas = true
                $0.motionPrediction = false
            })
        let modern = simulation.addClient(downstream: LinkConditions(latency: .milliseconds(20)))
        let legacy = simulation.addClient(
            downstream: LinkConditions(latency: .milliseconds(20)), configure: { $0.offersEntropyDeltas = false })
        simulation.run(for: .seconds(2))
        #expect(simulation.clients[modern].deltaCoding == .entropy)
        #expect(simulation.clients[legacy].deltaCoding == .bitPacked)
        for index in [modern, legacy] {
            let client = simulation.clients[index]
            #expect(client.status == .connected)
            #expect(client.metrics.snapshotsUndecodable == 0, "client \(index) decodes every snapshot")
            #expect(client.metrics.snapshotsReceived > 30)
            #expect(client.latestSnapshot?.count ?? 0 > 0, "client \(index) holds the world")
        }
    }

    @Test("a host with entropy deltas off sends bit-packed deltas to a client that offers them")
    func hostOff() {
        let simulation = Simulation(game: DotsGame(orbCount: 10), configure: { $0.entropyDeltas = false })
        let client = simulation.addClient()
        simulation.run(for: .seconds(1))
        #expect(simulation.clients[client].deltaCoding == .bitPacked)
        #expect(simulation.clients[client].metrics.snapshotsUndecodable == 0)
        #expect(simulation.clients[client].metrics.snapshotsReceived > 10)
    }
}
