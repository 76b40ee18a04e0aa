import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// A host on a simulated network, and clients that speak raw frames: for tests of what the host
/// does with frames a well-behaved ``ClientSession`` never sends, and of how it ends connections.
final class RawClientBench {
    let clock = VirtualClock()
    let network: SimulatedNetwork
    let game: DotsGame
    let host: Host<DotsGame>

    /// - Parameter directory: Makes the host's room directory from the bench's clock (default none).
    init(
        game: DotsGame = DotsGame(orbCount: 2), configure: (inout HostConfiguration) -> Void = { _ in },
        directory: ((VirtualClock) -> any RoomDirectory)? = nil
    ) {
        self.game = game
        network = SimulatedNetwork(clock: clock, seed: 11)
        var configuration = HostConfiguration()
        configuration.tokenSeed = 11
        configure(&configuration)
        if let directory {
            host = Host(game: game, listener: network, clock: clock, configuration: configuration, directory: directory(clock))
        } else {
            host = Host(game: game, listener: network, clock: clock, configuration: configuration)
        }
    }

    /// A bench whose host carries on from `state` (``Host/init(game:listener:clock:configuration:restoring:)``),
    /// as a restarted process's would; its tokens come from another seed than the default bench's.
    init(
        game: DotsGame = DotsGame(orbCount: 2), restoring state: HostState<DotsGame.State>,
        configure: (inout HostConfiguration) -> Void = { _ in }
    ) throws {
        self.game = game
        network = SimulatedNetwork(clock: clock, seed: 12)
        var configuration = HostConfiguration()
        configuration.tokenSeed = 12
        configure(&configuration)
        host = try Host(game: game, listener: network, clock: clock, configuration: configuration, restoring: state)
    }

    /// One raw client: its connection and everything it has received so far.
    final class Client {
        let connection: SimulatedConnection
        var messages: [Message] = []
        var closeReason: TransportCloseReason?
        var welcome: Message.Welcome? {
            for case .welcome(let welcome) in messages { return welcome }
            return nil
        }
        var reject: Message.Reject? {
            for case .reject(let reject) in messages { return reject }
            return nil
        }
        var disconnect: Message.Disconnect? {
            for case .disconnect(let disconnect) in messages { return disconnect }
            return nil
        }
        var isClosed: Bool { closeReason != nil }
        var nextSequence: UInt32 = 1

        init(connection: SimulatedConnection) { self.connection = connection }

        /// Takes in what arrived (uncompressed frames: the raw hello offers no compression).
        func receive() {
            for event in connection.drain() {
                switch event {
                case .frame(let bytes):
                    if let frame = try? Frame(parsing: bytes), let message = try? Message(type: frame.type, body: frame.body) {
                        messages.append(message)
                    }
                case .closed(let reason):
                    closeReason = reason
                }
            }
        }

        /// Sends one valid input message carrying one valid input (the next sequence number).
        func sendInput(game: DotsGame) {
            let input = game.encode(DotsGame.Input(dx: 1, dy: 0))
            let message = Message.Input(ackTick: nil, newestSequence: nextSequence, inputs: [input])
            nextSequence += 1
            send(.input(message))
        }

        func send(_ message: Message) {
            if let frame = try? FrameCompressor.uncompressed().encode(message) { connection.send(frame) }
        }
    }

    /// A client that connected; `hello` (a frame) is sent when given.
    func connect(sending hello: [UInt8]?) -> Client {
        let client = Client(connection: network.connect())
        if let hello { client.connection.send(hello) }
        return client
    }

    /// A client that sends a well-formed hello for `room` (resuming with `token`), offering no compression.
    func join(
        room: String = "", token: [UInt8]? = nil, payload: [UInt8] = [], connectToken: Message.Hello.ConnectToken? = nil
    ) -> Client {
        let hello = Message.Hello(
            schemaFingerprint: game.schema.fingerprint, compressionModes: [], room: room, resumeToken: token, payload: payload,
            connectToken: connectToken)
        return connect(sending: (try? FrameCompressor.uncompressed().encode(.hello(hello))) ?? [])
    }

    /// A hello frame built byte by byte, so that it can break the rules a hello encoder keeps.
    func rawHello(version: UInt16 = tickwireProtocolVersion, flags: UInt8 = 0, room: [UInt8] = [], payload: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = [MessageType.hello.rawValue, UInt8(version >> 8), UInt8(version & 0xFF)]
        let fingerprint = game.schema.fingerprint
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: fingerprint >> UInt64(shift))) }
        bytes += [0, flags]
        bytes += Self.varint(room.count) + room
        bytes += Self.varint(payload.count) + payload
        return bytes
    }

    static func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value)
        var bytes: [UInt8] = []
        repeat {
            let group = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? group : group | 0x80)
        } while value != 0
        return bytes
    }

    /// Runs the host for `milliseconds` of virtual time in 5 ms steps; every client takes in
    /// what arrived after each step, and `each` runs once per step.
    func run(milliseconds: Int, clients: [Client], each: (Int) -> Void = { _ in }) {
        for step in 0..<(milliseconds / 5) {
            each(step)
            host.advance()
            clock.advance(by: .milliseconds(5))
            for client in clients { client.receive() }
        }
    }
}
