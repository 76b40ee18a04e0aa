import Testing
import TickwireCodec
import TickwireSim

@testable import ArenaGame

/// The arena's player names: one text field (protocol 1.2), filled in one place
/// (``ArenaRules/playerName(from:id:)``), and a host that refuses a client unable to read it.
@Suite("Arena names")
struct ArenaNameTests {
    @Test("a requested name keeps letters and digits of any script, - and _, at most 10 characters")
    func playerName() {
        #expect(ArenaRules.playerName(from: "Ann-1", id: 3) == "Ann-1")
        #expect(ArenaRules.playerName(from: "Zoë 日本", id: 3) == "Zoë日本", "spaces dropped, other scripts kept")
        #expect(ArenaRules.playerName(from: "a\u{7}b\nc\u{200B}d", id: 3) == "abcd", "controls and invisible characters dropped")
        #expect(ArenaRules.playerName(from: String(repeating: "x", count: 10), id: 3).count == 10, "10 characters: the limit")
        #expect(ArenaRules.playerName(from: String(repeating: "x", count: 11), id: 3).count == 10, "11: cut to 10")
        #expect(ArenaRules.playerName(from: "!!!", id: 3) == "player3", "nothing usable: player<N>")
    }

    @Test("the name is one text field of 40 bytes: ten 4-byte characters fit, and travel in both codings")
    func nameField() throws {
        let fields = ArenaSchema.schema.entityTypes[ArenaSchema.playerType].fields
        #expect(fields.count == 7 && fields[6].name == "name" && fields[6].kind == .text(maxBytes: 40))
        #expect(ArenaSchema.schema.needsTextFields)
        var world = ArenaWorld(seed: 2)
        let longest = String(repeating: "🙂", count: 10)  // 40 bytes, the bound
        ArenaRules.addHuman(id: 1, named: longest, to: &world)
        ArenaRules.addHuman(id: 2, named: ArenaRules.playerName(from: "Zoë", id: 2), to: &world)
        var snapshot = Snapshot(schema: ArenaSchema.schema, tick: 0)
        try ArenaSchema.capture(world, into: &snapshot)
        for coding in [DeltaCoding.bitPacked, .entropy] {
            let codec = SnapshotCodec(schema: ArenaSchema.schema)
            let decoded = try codec.decode(try codec.encode(snapshot, against: nil, coding: coding), baseline: nil, coding: coding)
            var scene = ArenaScene(map: world.map)
            ArenaSchema.fill(&scene, from: decoded)
            #expect(scene.players.map(\.name) == [longest, "Zoë"], "\(coding)")
        }
    }

    @Test("a host of the arena refuses a hello that does not offer text fields: reason 1, close 4003")
    func refusesClientWithoutTextFields() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 3)
        let game = Arena(botCount: 0)
        let host = Host(game: game, listener: network, clock: clock, configuration: HostConfiguration())
        var outcomes: [Bool: (reject: Message.Reject?, close: TransportCloseReason?)] = [:]
        for offersTextFields in [false, true] {
            let connection = network.connect()
            let hello = Message.Hello(schemaFingerprint: game.schema.fingerprint, compressionModes: [], offersTextFields: offersTextFields)
            connection.send(try FrameCompressor.uncompressed().encode(.hello(hello)))
            var reject: Message.Reject?
            var close: TransportCloseReason?
            var welcomed = false
            for _ in 0..<10 {
                host.advance()
                clock.advance(by: .milliseconds(5))
                for event in connection.drain() {
                    switch event {
                    case .frame(let bytes):
                        let frame = try Frame(parsing: bytes)
                        switch try Message(type: frame.type, body: frame.body) {
                        case .reject(let message): reject = message
                        case .welcome: welcomed = true
                        default: break
                        }
                    case .closed(let reason): close = reason
                    }
                }
            }
            #expect(welcomed == offersTextFields, "offers text fields: \(offersTextFields)")
            outcomes[offersTextFields] = (reject, close)
        }
        let refused = try #require(outcomes[false]?.reject, "the hello without bit 3 gets a reject")
        #expect(refused.reason == .versionMismatch)
        #expect(refused.text.contains("text fields"), "got \(refused.text)")
        #expect(outcomes[false]?.close?.code == refused.reason.closeCode, "closed with the reject's code (4003)")
        #expect(outcomes[true]?.reject == nil)
    }
}
