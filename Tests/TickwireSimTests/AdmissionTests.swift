import Synchronization
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

/// The game's admission hook (``Game/admit(_:in:)``): it runs before the welcome, and its
/// refusal reaches the client as a reject with the game's reason and words, final for a
/// ``ReconnectingSession``.
@Suite("Admission")
struct AdmissionTests {
    /// The banned name of these tests' admission policy.
    static let banned: [UInt8] = Array("mallory".utf8)
    static let bannedReason = Message.Reject.Reason(rawValue: 32768)

    /// A game that refuses the hello payload "mallory" with reason 32768.
    static func gameRefusingMallory() -> DotsGame {
        var game = DotsGame(orbCount: 2)
        game.admissionPolicy = { request, _ in
            request.payload == banned ? .refused(bannedReason, text: "mallory is banned until Friday") : .admitted
        }
        return game
    }

    @Test("a refused hello gets a reject with the game's reason 32768 and text, a close 1008, and no player")
    func refusedAtTheDoor() {
        let bench = RawClientBench(game: Self.gameRefusingMallory())
        let client = bench.join(payload: Self.banned)
        bench.run(milliseconds: 100, clients: [client])
        #expect(client.reject == Message.Reject(reason: Self.bannedReason, text: "mallory is banned until Friday"))
        #expect(client.welcome == nil, "a refused client is never welcomed")
        #expect(!client.messages.contains { $0.type == .snapshot }, "a refused client sees nothing of the world")
        #expect(client.closeReason?.code == .policyViolation, "got \(String(describing: client.closeReason))")
        #expect(bench.host.room(named: "")?.clientIDs == [], "the refused player was never added")
        #expect(bench.host.rejections[Self.bannedReason] == 1)
    }

    @Test("the hook sees the player's number, the room and the payload; an admitted player is welcomed with that number")
    func requestCarriesTheHello() throws {
        let seen = Mutex<[AdmissionRequest]>([])
        var game = DotsGame(orbCount: 2)
        game.admissionPolicy = { request, _ in
            seen.withLock { $0.append(request) }
            return .admitted
        }
        let bench = RawClientBench(game: game) { $0.rooms = ["", "red"] }
        let client = bench.join(room: "red", payload: Array("alice".utf8))
        bench.run(milliseconds: 100, clients: [client])
        let welcome = try #require(client.welcome, "an admitted client is welcomed")
        let requests = seen.withLock { $0 }
        #expect(requests == [AdmissionRequest(player: welcome.clientID, room: "red", payload: Array("alice".utf8), isResuming: false)])
        #expect(bench.host.room(named: "red")?.clientIDs == [welcome.clientID])
    }

    @Test("a refused newcomer does not use up a player number: the next admitted one gets it")
    func refusalKeepsTheNumber() throws {
        let bench = RawClientBench(game: Self.gameRefusingMallory())
        let refused = bench.join(payload: Self.banned)
        bench.run(milliseconds: 100, clients: [refused])
        let admitted = bench.join(payload: Array("alice".utf8))
        bench.run(milliseconds: 100, clients: [admitted])
        #expect(try #require(admitted.welcome).clientID == 1)
    }

    @Test("a resumed session asks the hook too, as resuming; refused, the held player stays held")
    func resumeAsksAgain() throws {
        let refuseResumes = Mutex(false)
        let seen = Mutex<[AdmissionRequest]>([])
        var game = DotsGame(orbCount: 2)
        game.admissionPolicy = { request, _ in
            seen.withLock { $0.append(request) }
            return request.isResuming && refuseResumes.withLock({ $0 }) ? .refused(text: "not now") : .admitted
        }
        let bench = RawClientBench(game: game) { $0.resumeGracePeriod = .seconds(30) }
        let first = bench.join()
        bench.run(milliseconds: 100, clients: [first])
        let welcome = try #require(first.welcome)
        first.connection.disconnect()
        bench.run(milliseconds: 100, clients: [first])

        refuseResumes.withLock { $0 = true }
        let refused = bench.join(token: welcome.resumeToken)
        bench.run(milliseconds: 100, clients: [refused])
        #expect(refused.reject == Message.Reject(reason: .refusedByGame, text: "not now"))
        #expect(bench.host.room(named: "")?.clientIDs == [welcome.clientID], "the held player is still held")

        refuseResumes.withLock { $0 = false }
        let resumed = bench.join(token: welcome.resumeToken)
        bench.run(milliseconds: 100, clients: [resumed])
        #expect(resumed.welcome?.clientID == welcome.clientID, "admitted, the session resumes its player")
        let resuming = seen.withLock { $0.map(\.isResuming) }
        #expect(resuming == [false, true, true])
    }

    @Test("a refusal with a Tickwire reason (below 32768) is sent as 32768, and the host warns")
    func tickwireReasonIsReplaced() {
        let log = RoomSnapshotDropTests.RecordingSink()
        var game = DotsGame(orbCount: 2)
        game.admissionPolicy = { _, _ in .refused(.roomFull, text: "two players already") }
        let bench = RawClientBench(game: game) { $0.logSink = log.sink }
        let client = bench.join()
        bench.run(milliseconds: 100, clients: [client])
        #expect(client.reject == Message.Reject(reason: .refusedByGame, text: "two players already"))
        #expect(log.all.contains { $0.level == .warning && $0.message.contains("below 32768") }, "logged: \(log.all)")
    }

    @Test("a game refusal with reason 32768 and a text reaches a reconnecting client once, as final")
    func reconnectingClientStops() throws {
        let simulation = Simulation(game: Self.gameRefusingMallory())
        let index = simulation.addReconnectingClient(
            policy: ReconnectingSessionTests.policy, configure: { $0.helloPayload = Self.banned })
        let client = try #require(simulation.reconnectingClients[index])
        var states: [ConnectionState] = []
        client.onStateChange = { states.append($0) }
        simulation.run(for: .seconds(10))
        let refused = ConnectionState.refused(reason: Self.bannedReason, text: "mallory is banned until Friday")
        #expect(states == [.connecting(attempt: 1), refused], "one attempt, then refused with the game's words; got \(states)")
        #expect(simulation.host.rejections[Self.bannedReason] == 1, "exactly one hello reached the server in 10 s")
        #expect(client.failedAttempts == 0)
        #expect(simulation.room.clientIDs.isEmpty)
    }

    @Test("a refusal's words at the text limit arrive whole; one byte past it they are cut to the limit", arguments: [0, 1])
    func refusalTextLimit(over: Int) throws {
        let limit = FrameLimits().maximumTextBytes
        let words = String(repeating: "w", count: limit + over)
        var game = DotsGame(orbCount: 2)
        game.admissionPolicy = { _, _ in .refused(text: words) }
        let bench = RawClientBench(game: game)
        let client = bench.join()
        bench.run(milliseconds: 100, clients: [client])
        let reject = try #require(client.reject, "the refusal arrives, whatever the length of its words")
        #expect(reject.text == String(words.prefix(limit)), "\(reject.text.utf8.count) bytes arrived of \(limit + over)")
    }

    @Test("reasons from 32768 up are the application's, those below Tickwire's")
    func applicationRange() {
        #expect(!Message.Reject.Reason(rawValue: 32767).isApplicationReason)
        #expect(Message.Reject.Reason(rawValue: 32768).isApplicationReason)
        #expect(Message.Reject.Reason(rawValue: 65535).isApplicationReason)
        #expect(Message.Reject.Reason.refusedByGame.rawValue == 32768)
    }
}

/// What the host says and logs when it refuses a hello.
@Suite("Refusal words and logs")
struct RefusalWordsTests {
    @Test("a schema-mismatch refusal names the game's version after both fingerprints")
    func schemaMismatchNamesTheVersion() throws {
        var game = DotsGame(orbCount: 2)
        game.version = "dots 2.1"
        let bench = RawClientBench(game: game)
        let hello = Message.Hello(schemaFingerprint: game.schema.fingerprint ^ 1, compressionModes: [])
        let client = bench.connect(sending: try FrameCompressor.uncompressed().encode(.hello(hello)))
        bench.run(milliseconds: 100, clients: [client])
        let reject = try #require(client.reject)
        #expect(reject.reason == .schemaMismatch)
        #expect(reject.text.hasPrefix("the server's schema fingerprint is 0x"), "both fingerprints first: \(reject.text)")
        #expect(reject.text.hasSuffix("; the server runs dots 2.1"), "then the version: \(reject.text)")
    }

    @Test("without a version the schema-mismatch words are the two fingerprints alone")
    func schemaMismatchWithoutVersion() throws {
        let bench = RawClientBench()
        let hello = Message.Hello(schemaFingerprint: bench.game.schema.fingerprint ^ 1, compressionModes: [])
        let client = bench.connect(sending: try FrameCompressor.uncompressed().encode(.hello(hello)))
        bench.run(milliseconds: 100, clients: [client])
        let text = try #require(client.reject?.text)
        #expect(!text.contains("runs"), "no version named: \(text)")
    }

    @Test("a version too long for the reject's text is what the limit cuts, never the fingerprints")
    func longVersionIsCut() throws {
        var game = DotsGame(orbCount: 2)
        game.version = String(repeating: "v", count: FrameLimits().maximumTextBytes)
        let bench = RawClientBench(game: game)
        let hello = Message.Hello(schemaFingerprint: game.schema.fingerprint ^ 1, compressionModes: [])
        let client = bench.connect(sending: try FrameCompressor.uncompressed().encode(.hello(hello)))
        bench.run(milliseconds: 100, clients: [client])
        let text = try #require(client.reject?.text)
        #expect(text.utf8.count == FrameLimits().maximumTextBytes, "cut to the text limit: \(text.utf8.count) bytes")
        #expect(text.hasPrefix("the server's schema fingerprint is 0x"))
    }

    @Test("every refusal is logged with its reason, code, words and room; the game's too")
    func everyRefusalLogged() {
        let log = RoomSnapshotDropTests.RecordingSink()
        let bench = RawClientBench(game: AdmissionTests.gameRefusingMallory()) {
            $0.logSink = log.sink
            $0.roomCapacity = 1
        }
        let banned = bench.join(payload: AdmissionTests.banned)
        let nowhere = bench.join(room: "nowhere")
        let invalid = bench.connect(sending: [MessageType.ping.rawValue, 0])
        bench.run(milliseconds: 100, clients: [banned, nowhere, invalid])
        let refusals = log.all.filter { $0.message == "refused a hello" }
        #expect(refusals.count == 3, "one record per refusal, got \(refusals)")
        let game = refusals.first { $0.metadata["code"] == "32768" }
        #expect(game?.metadata["text"] == "mallory is banned until Friday")
        #expect(game?.metadata["room"] == "")
        #expect(refusals.contains { $0.metadata["reason"] == "unknown room" && $0.metadata["room"] == "nowhere" })
        #expect(refusals.contains { $0.metadata["reason"] == "invalid hello" && $0.metadata["room"] == nil })
        #expect(refusals.allSatisfy { $0.source == "host" })
        #expect(
            refusals.allSatisfy { $0.level == ($0.metadata["reason"] == "invalid hello" ? .debug : .info) },
            "refusals at info, a stranger's invalid hello at debug: \(refusals.map { ($0.metadata["reason"], $0.level) })")
    }

    @Test("a newcomer the game refuses takes no held player's seat in a full room; one it admits does")
    func refusedNewcomerKeepsHeldSlot() throws {
        let bench = RawClientBench(game: AdmissionTests.gameRefusingMallory()) {
            $0.roomCapacity = 1
            $0.resumeGracePeriod = .seconds(30)
            $0.resumeGracePeriodWithoutInput = .seconds(30)
        }
        let held = bench.join()
        bench.run(milliseconds: 100, clients: [held])
        let heldID = try #require(held.welcome?.clientID)
        held.connection.disconnect()
        bench.run(milliseconds: 100, clients: [])
        let room = try #require(bench.host.room(named: ""))
        #expect(room.clientIDs == [heldID], "the dropped player is held")

        let banned = bench.join(payload: AdmissionTests.banned)
        bench.run(milliseconds: 100, clients: [banned])
        #expect(banned.reject?.reason == AdmissionTests.bannedReason)
        #expect(room.clientIDs == [heldID], "the refused newcomer took no one's seat")
        #expect(room.metrics.heldSlotsReleased == 0)

        let admitted = bench.join(payload: Array("alice".utf8))
        bench.run(milliseconds: 100, clients: [admitted])
        let admittedID = try #require(admitted.welcome?.clientID, "an admitted newcomer takes the held seat")
        #expect(room.clientIDs == [admittedID])
    }
}
