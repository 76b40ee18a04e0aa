import Dispatch
import Testing
import TickwireFoundation
import TickwireIO
import TickwireZlib

@testable import TickwireWebSocket

/// permessage-deflate inflates in bounded steps: the machine stops at its inflation budget and
/// goes on when given a new one, and the server spreads a deflate bomb over many loop turns,
/// serving its other connections in between, before refusing it with 1009.
@Suite("Inflation in bounded steps")
struct InflationStepTests {
    /// A masked, compressed client frame carrying `size` zero bytes.
    static func compressedZeros(_ size: Int) throws -> [UInt8] {
        let client = try WebSocketProtocolMachine(role: .client, compression: PerMessageDeflateParameters())
        var wire: [UInt8] = []
        try client.sendBinary([UInt8](repeating: 0, count: size), output: &wire)
        return wire
    }

    /// Feeds `wire` to a server machine `step` inflated bytes at a time; counts the steps.
    static func feedInSteps(_ wire: [UInt8], step: Int, limit: Int) throws -> (events: [WebSocketEvent], steps: Int, error: WebSocketError?)
    {
        let limits = WebSocketLimits(maximumFramePayloadBytes: limit, maximumMessageBytes: limit)
        let server = try WebSocketProtocolMachine(
            role: .server, configuration: WebSocketConfiguration(limits: limits), compression: PerMessageDeflateParameters())
        var rest = wire[...]
        var events: [WebSocketEvent] = []
        var output: [UInt8] = []
        var steps = 0
        repeat {
            server.inflationBudget = step
            let before = server.inbound.messagePayload.count
            do {
                let taken = try rest.withUnsafeBytes { try server.receive($0, output: &output) { events.append($0) } }
                rest = rest.dropFirst(taken)
            } catch let error as WebSocketError {
                return (events, steps, error)
            }
            let grown = server.inbound.messagePayload.count - before
            #expect(grown <= step, "one step inflates at most its budget (\(grown) > \(step))")
            steps += 1
        } while (!rest.isEmpty || server.isInflationSuspended) && steps < 100_000
        return (events, steps, nil)
    }

    @Test("the machine inflates a 4 MiB message 64 KiB per step and delivers it whole; with an unlimited budget in one call")
    func machineSteps() throws {
        let wire = try Self.compressedZeros(4 << 20)
        let stepped = try Self.feedInSteps(wire, step: 64 * 1024, limit: 16 << 20)
        #expect(stepped.error == nil)
        #expect(stepped.events == [.binary([UInt8](repeating: 0, count: 4 << 20))], "the message arrives whole")
        #expect(stepped.steps >= (4 << 20) / (64 * 1024), "at least 64 steps of 64 KiB, got \(stepped.steps)")
        let whole = try Self.feedInSteps(wire, step: .max, limit: 16 << 20)
        #expect(whole.steps == 1 && whole.events == stepped.events)
    }

    @Test("a deflate bomb stepped through is still refused with 1009 at the message limit, after limit / step steps")
    func machineBomb() throws {
        let wire = try Self.compressedZeros(64 << 20)
        let result = try Self.feedInSteps(wire, step: 64 * 1024, limit: 1 << 20)
        #expect(result.error?.closeCode == .messageTooBig, "refused with 1009, got \(String(describing: result.error))")
        #expect(result.steps >= 16, "1 MiB at 64 KiB a step takes 16 steps before the refusal, got \(result.steps)")
        #expect(result.events.isEmpty)
    }

    @Test(
        "during a deflate bomb on one connection, another connection is served between the bomb's inflation steps; its round trip stays small"
    )
    func otherConnectionsServedDuringBomb() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.compression = PerMessageDeflateConfiguration()
        configuration.inflationStepBytes = 64 * 1024
        let limit = 64 << 20
        configuration.protocolConfiguration = WebSocketConfiguration(
            limits: WebSocketLimits(maximumFramePayloadBytes: limit, maximumMessageBytes: limit))
        let stepsAtEcho = Shared<[Int]>([])
        let bombClosedAtStep = Shared<Int?>(nil)
        let recorder = Recorder<Seen>()
        let server = try WebSocketServer(configuration: configuration) { event in
            recorder.push(.server(event))
            switch event {
            case .message(let connection, let message):
                // On the loop thread: how many inflation steps the loop had run when this echo was served.
                stepsAtEcho.withLock { $0.append(WebSocketLoopState.of(connection.loop).inflationSteps) }
                connection.send(message)
            case .closed(let connection, _) where connection.requestTarget == "/bomb":
                bombClosedAtStep.withLock { $0 = WebSocketLoopState.of(connection.loop).inflationSteps }
            default: break
            }
        }
        let port = try server.start().port
        defer { server.shutdown(timeout: .seconds(1)) }

        let echoes = Recorder<Seen>()
        var plain = WebSocketClientConfiguration()
        plain.reconnect = .disabled
        let player = try makeClient(port: port, path: "/player", configuration: plain, recorder: echoes)
        defer { player.shutdown() }
        player.connect()
        try #require(echoes.wait(seconds: 5, until: isOpen))

        var compressed = plain
        compressed.compression = PerMessageDeflateConfiguration()
        compressed.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 256 << 20)
        let bombRecorder = Recorder<Seen>()
        let bomber = try makeClient(port: port, path: "/bomb", configuration: compressed, recorder: bombRecorder)
        defer { bomber.shutdown() }
        bomber.connect()
        try #require(bombRecorder.wait(seconds: 5, until: isOpen))
        let bomb = WebSocketMessage.binary([UInt8](repeating: 0, count: limit + (4 << 20)))  // inflates past the limit

        bomber.send(bomb)
        var roundTrips: [Double] = []
        var received = 0
        while bombClosedAtStep.value == nil && roundTrips.count < 10_000 {
            let start = MonotonicTime.now()
            player.send(text: "ping \(received)")
            received += 1
            let count = received
            guard echoes.wait(seconds: 2, until: { $0.compactMap(\.clientMessage).count >= count }) else { break }
            roundTrips.append(Double(MonotonicTime.now() - start) / 1e6)
        }
        #expect(recorder.wait(seconds: 10) { _ in bombClosedAtStep.value != nil }, "the bomb should be refused")
        let bombClose = recorder.all.first { if case .server(.closed(let c, _)) = $0 { c.requestTarget == "/bomb" } else { false } }?
            .serverClose
        #expect(bombClose?.code == .messageTooBig, "the bomb is refused with 1009, got \(String(describing: bombClose))")
        let lastStep = try #require(bombClosedAtStep.value)
        #expect(lastStep >= limit / (64 * 1024) - 2, "the bomb took about limit / step turns (\(lastStep))")
        let between = stepsAtEcho.value.filter { $0 > 0 && $0 < lastStep }
        #expect(
            between.count >= 3, "the player was served between the bomb's steps (\(between.count) echoes at steps \(between.prefix(10)))")
        // Timing on a shared machine in a debug build: the 90th percentile, with a generous bound
        // (the count above is what shows the interleaving; this shows it is quick).
        let sorted = roundTrips.sorted()
        let p90 = sorted.isEmpty ? 0 : sorted[sorted.count * 9 / 10]
        #expect(
            !sorted.isEmpty && p90 < 50,
            "the player's round trip stays under 50 ms during the bomb (p90 \(p90) ms, worst \(sorted.last ?? 0) ms over \(sorted.count))")
    }
}
