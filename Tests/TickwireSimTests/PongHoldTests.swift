import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// A clock a fixed distance ahead of another: a client whose clock disagrees with the host's by a known offset.
final class ShiftedClock: TickClock {
    let base: VirtualClock
    let shift: Duration

    init(base: VirtualClock, shift: Duration) {
        self.base = base
        self.shift = shift
    }

    var now: Timestamp { base.now + shift }
    func sleep(until deadline: Timestamp) { base.sleep(until: deadline - shift) }
}

/// The server's hold in pongs (PROTOCOL.md §5.9.1): network round trip and clock offset without the tick wait.
@Suite("Pong hold")
struct PongHoldTests {
    /// The client's clock runs this far ahead of the host's: the true offset is its negation.
    static let shift = Duration.milliseconds(7_500)
    /// Each direction's latency: the network round trip is twice this.
    static let latency = Duration.milliseconds(25)

    /// A 20 Hz host (ticks at 0, 50, 100 … ms) and one client whose clock is ``shift`` ahead, over
    /// 25 ms links each way. The client ticks (sends, pings, drains) 10 ms after each host tick, so
    /// each ping arrives 35 ms after a host tick and waits 15 ms for the next; its pong arrives
    /// 25 ms after a client tick and waits 25 ms there too, which the client must not count.
    static func run(offersPongHold: Bool) -> ClientSession<DotsGame> {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 3)
        var hostConfiguration = HostConfiguration()
        hostConfiguration.tickRate = 20
        let host = Host(game: DotsGame(orbCount: 1), listener: network, clock: clock, configuration: hostConfiguration)
        var configuration = ClientConfiguration()
        configuration.offersPongHold = offersPongHold
        configuration.pingInterval = .milliseconds(200)
        let client = ClientSession(
            game: DotsGame(orbCount: 1), clock: ShiftedClock(base: clock, shift: shift), configuration: configuration)
        let link = LinkConditions(latency: latency)
        client.connect(over: network.connect(upstream: link, downstream: link))
        while clock.now < Timestamp(nanoseconds: 3_000_000_000) {
            host.advance()
            if clock.now.nanoseconds % 50_000_000 == 10_000_000 { client.tick(input: nil) }
            clock.advance(by: .milliseconds(1))
        }
        return client
    }

    @Test("with a known 15 ms hold, the round trip is the network's 50 ms and the offset exact")
    func exactOnVirtualClock() throws {
        let client = Self.run(offersPongHold: true)
        #expect(client.status == .connected)
        #expect(client.clockSync.sampleCount >= 10, "a ping every 200 ms for about 3 s, got \(client.clockSync.sampleCount) pongs")
        let metrics = client.metrics
        #expect(abs(metrics.roundTrip - 0.050) < 1e-9, "2 × 25 ms on the wire, without the hold; got \(metrics.roundTrip) s")
        #expect(abs(metrics.serverHold - 0.015) < 1e-9, "each ping waited 15 ms for the host's tick; got \(metrics.serverHold) s")
        let offset = try #require(client.clockSync.offset)
        #expect(abs(offset + Self.shift.secondsValue) < 1e-9, "server time = client time − 7.5 s exactly; estimated offset \(offset)")
    }

    @Test("a client that does not offer the hold gets the original pong: the hold is in its round trip, half of it in its offset")
    func clientWithoutOffer() throws {
        let client = Self.run(offersPongHold: false)
        #expect(client.status == .connected)
        let metrics = client.metrics
        #expect(abs(metrics.roundTrip - 0.065) < 1e-9, "50 ms on the wire + 15 ms of hold; got \(metrics.roundTrip) s")
        #expect(metrics.serverHold == 0, "the original pong says nothing of the hold")
        let offset = try #require(client.clockSync.offset)
        #expect(
            abs(offset + Self.shift.secondsValue - 0.0075) < 1e-9,
            "the original formula is off by half the hold (7.5 ms); estimated offset \(offset)")
    }

    /// A host's answers to a raw client's hello and ping, over a perfect link: the welcome and the pong.
    static func rawExchange(offersPongHold: Bool) throws -> (Message.Welcome, Message.Pong) {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 4)
        var hostConfiguration = HostConfiguration()
        hostConfiguration.tickRate = 20
        let host = Host(game: DotsGame(orbCount: 1), listener: network, clock: clock, configuration: hostConfiguration)
        let connection = network.connect()
        let encoder = FrameCompressor.uncompressed()
        let hello = Message.Hello(
            schemaFingerprint: DotsGame(orbCount: 1).schema.fingerprint, compressionModes: [], offersPongHold: offersPongHold)
        connection.send(try encoder.encode(.hello(hello)))
        var welcome: Message.Welcome?
        var pong: Message.Pong?
        let decoder = FrameDecompressor.uncompressed()
        for millisecond in 0..<200 {
            host.advance()
            // The ping leaves at 20 ms, between the host's ticks at 0 and 50 ms.
            if millisecond == 20 { connection.send(try encoder.encode(.ping(Message.Ping(clientTime: 777)))) }
            for arrival in connection.drainArrivals() {
                guard case .frame(let bytes) = arrival.event else { continue }
                switch try decoder.decode(bytes) {
                case .welcome(let message): welcome = message
                case .pong(let message): pong = message
                default: break
                }
            }
            clock.advance(by: .milliseconds(1))
        }
        return (try #require(welcome, "the host welcomes the hello"), try #require(pong, "the host answers the ping"))
    }

    @Test("a host welcomes an offering client with bit 4 and answers its ping with the hold, from arrival to its next tick")
    func hostAnswersWithHold() throws {
        let (welcome, pong) = try Self.rawExchange(offersPongHold: true)
        #expect(welcome.acceptsPongHold)
        #expect(pong.clientTime == 777)
        #expect(pong.serverTime == 50_000, "answered at the host's tick at 50 ms")
        #expect(pong.hold == 30_000, "the ping arrived at 20 ms and waited 30 ms for that tick")
        #expect(pong.receiveTime == 20_000)
    }

    @Test("a host answers a client that did not offer the hold with the original pong and a welcome without bit 4")
    func hostAnswersOldClient() throws {
        let (welcome, pong) = try Self.rawExchange(offersPongHold: false)
        #expect(!welcome.acceptsPongHold)
        #expect(pong.hold == nil, "an old client would refuse the hold as trailing bytes")
        #expect(pong.serverTime == 50_000)
        let frame = try FrameCompressor.uncompressed().encode(.pong(pong))
        #expect(frame.count == 1 + 2 + 3, "type, client time 777 (2 bytes), server time 50 000 µs (3 bytes): the 5.9 layout")
    }

    @Test("against a server without the extension (welcome without bit 4, pongs without hold) the client uses the original formula")
    func oldServer() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        let client = ClientSession(game: DotsGame(orbCount: 1), clock: clock)
        let link = LinkConditions(latency: Self.latency)
        client.connect(over: network.connect(upstream: link, downstream: link))
        var server: (any TransportConnection)?
        var helloOffered: Bool?
        let encoder = FrameCompressor.uncompressed()
        let decoder = FrameDecompressor.uncompressed()
        while clock.now < Timestamp(nanoseconds: 2_000_000_000) {
            if server == nil { server = network.acceptPending().first }
            let onTick = clock.now.nanoseconds % 50_000_000 == 0
            // A version 1 server: reads its inbox only at its 20 Hz ticks and answers with 5.9 pongs.
            if let server, onTick {
                for case .frame(let bytes) in server.drain() {
                    switch try decoder.decode(bytes) {
                    case .hello(let hello):
                        helloOffered = hello.offersPongHold
                        let welcome = Message.Welcome(
                            clientID: 1, tickRate: 20, currentTick: 1, serverTime: UInt64(clock.now.nanoseconds / 1000))
                        server.send(try encoder.encode(.welcome(welcome)))
                    case .ping(let ping):
                        // Answered at this tick: the pings drained now arrived since the last one.
                        let pong = Message.Pong(clientTime: ping.clientTime, serverTime: UInt64(clock.now.nanoseconds / 1000))
                        server.send(try encoder.encode(.pong(pong)))
                    default: break
                    }
                }
            }
            if clock.now.nanoseconds % 50_000_000 == 10_000_000 { client.tick(input: nil) }
            clock.advance(by: .milliseconds(1))
        }
        #expect(helloOffered == true, "a client offers the hold by default")
        #expect(client.status == .connected)
        #expect(client.clockSync.sampleCount >= 2)
        // Pings leave 10 ms after a server tick, arrive at 35 ms, wait 15 ms: 65 ms by the original formula.
        #expect(abs(client.metrics.roundTrip - 0.065) < 1e-9, "got \(client.metrics.roundTrip) s")
        #expect(client.metrics.serverHold == 0)
    }
}
