import TickwireCodec

/// A server process's game host: accepts connections from a ``TransportListener``,
/// performs the handshake, and runs any number of named ``Room``s, each with its own
/// world, tick loop and clients.
///
/// The handshake: a connection's first frame must be a hello. It is rejected, with a
/// reason and words for a person, when its protocol version or schema fingerprint differs
/// from the host's, when it names a room the host does not run, or when the room is full.
/// A hello carrying the resume token of a client still within its grace period gets that
/// client's id and player back (and a full snapshot next); an unknown or expired token
/// joins as a new player. Everything else is the room's work.
///
/// ``exportState()`` and ``init(game:listener:clock:configuration:restoring:)`` carry the rooms'
/// worlds and resumable clients over a restart of the server process.
///
/// Driven by calls: ``advance()`` (tests, on a ``VirtualClock``) or ``run(until:)`` (real
/// time). Not thread-safe: one thread drives it; transports fill their inboxes from any thread.
public final class Host<G: Game> {
    struct Pending {
        var connection: any TransportConnection
        var acceptedAt: Timestamp
    }

    /// The game hosted.
    public let game: G
    /// The host's configuration.
    public let configuration: HostConfiguration
    /// The clock every room ticks on.
    public let clock: any TickClock
    let listener: any TransportListener
    private var roomsByName: [String: Room<G>] = [:]
    private var roomOrder: [String] = []
    private var pending: [Pending] = []
    /// The id the next new client gets (never 0); ``init(game:listener:clock:configuration:restoring:)`` moves it past restored ids.
    var nextClientID: UInt32 = 1
    private var seededTokens: SplitMix64?
    /// How long each pass of ``advance()`` that ran a tick took: accepting, handshakes and the
    /// due ticks of every room, one after another on the host's one thread. This is what a tick
    /// period must cover, however many rooms there are; stats messages (PROTOCOL.md 5.11) report it.
    public private(set) var passStatistics = TickStatistics()
    /// Handshakes refused so far, by reason.
    public private(set) var rejections: [Message.Reject.Reason: Int] = [:]

    /// Creates a host and the rooms its configuration names.
    ///
    /// - Parameters:
    ///   - game: The game to host.
    ///   - listener: Where new connections come from.
    ///   - clock: The clock to tick on.
    ///   - configuration: Rooms, rates, limits and policies.
    public init(game: G, listener: any TransportListener, clock: any TickClock, configuration: HostConfiguration = HostConfiguration()) {
        self.game = game
        self.listener = listener
        self.clock = clock
        self.configuration = configuration
        self.seededTokens = configuration.tokenSeed.map(SplitMix64.init(seed:))
        for name in configuration.rooms { _ = openRoom(named: name) }
    }

    /// The rooms' names, in the order they were opened.
    public var roomNames: [String] { roomOrder }

    /// The room named `name`, if the host runs it.
    ///
    /// - Parameter name: The room's name.
    /// - Returns: The room, or `nil`.
    public func room(named name: String) -> Room<G>? { roomsByName[name] }

    /// Opens a room (or returns the one already open under that name).
    ///
    /// - Parameter name: The room's name.
    /// - Returns: The room.
    @discardableResult
    public func openRoom(named name: String) -> Room<G> {
        if let room = roomsByName[name] { return room }
        let room = Room(name: name, game: game, configuration: configuration, clock: clock)
        room.serverTickStatistics = { [weak self] in self?.passStatistics }
        roomsByName[name] = room
        roomOrder.append(name)
        return room
    }

    /// Accepts new connections, advances handshakes, and runs every room's due ticks.
    public func advance() {
        let now = clock.now
        for connection in listener.acceptPending() { pending.append(Pending(connection: connection, acceptedAt: now)) }
        listener.batchingSends { handshake(now: now) }
        var ticked = false
        for name in roomOrder {
            guard let room = roomsByName[name] else { continue }
            // One batch per room: its clients' frames leave together, right after its tick.
            var ticksRun = 0
            listener.batchingSends { ticksRun = room.advance().ticksRun }
            if ticksRun > 0 { ticked = true }
        }
        if ticked {
            passStatistics.record(clock.now - now, period: .nanoseconds(1_000_000_000 / Int64(max(1, configuration.tickRate))))
        }
    }

    /// Runs the host in real time until `shouldStop` returns `true`: sleeps to the next room
    /// deadline (at most 5 ms, to answer handshakes promptly), then advances.
    ///
    /// - Parameter shouldStop: Checked before every sleep.
    public func run(until shouldStop: () -> Bool) {
        while !shouldStop() {
            let soonest = roomOrder.compactMap { roomsByName[$0]?.loop.nextDeadline }.min()
            let limit = clock.now + .milliseconds(5)
            clock.sleep(until: min(soonest ?? limit, limit))
            advance()
        }
    }

    private func handshake(now: Timestamp) {
        var waiting: [Pending] = []
        for entry in pending {
            var hello: Message.Hello?
            var closed = false
            var invalid = false
            var otherVersion: UInt16?
            for event in entry.connection.drain() {
                switch event {
                case .frame(let bytes):
                    if hello == nil {
                        do {
                            let frame = try Frame(parsing: bytes, limits: configuration.frameLimits)
                            if case .hello(let message) = try Message(type: frame.type, body: frame.body, limits: configuration.frameLimits),
                               !frame.isCompressed {
                                hello = message
                            } else {
                                invalid = true
                            }
                        } catch {
                            // Another protocol version may lay out its hello differently: when
                            // its version is readable, refuse it for what it is.
                            if let version = Message.Hello.protocolVersion(ofFrame: bytes), version != tickwireProtocolVersion {
                                otherVersion = version
                            }
                            invalid = true
                        }
                    }
                case .closed:
                    closed = true
                }
                if hello != nil || invalid { break }
            }
            if closed { continue }
            if let otherVersion {
                reject(entry.connection, .versionMismatch,
                    "the server speaks protocol version \(tickwireProtocolVersion), the client \(otherVersion)")
            } else if invalid {
                reject(entry.connection, .invalidHello, "the first frame must be an uncompressed hello")
            } else if let hello {
                accept(hello, on: entry.connection, now: now)
            } else if now - entry.acceptedAt > configuration.handshakeTimeout {
                entry.connection.close()
            } else {
                waiting.append(entry)
            }
        }
        pending = waiting
    }

    private func reject(_ connection: any TransportConnection, _ reason: Message.Reject.Reason, _ text: String) {
        rejections[reason, default: 0] += 1
        let text = String(text.utf8.prefix(configuration.frameLimits.maximumTextBytes)) ?? ""
        FrameCompressor.uncompressed(limits: configuration.frameLimits).send(.reject(Message.Reject(reason: reason, text: text)), over: connection)
        connection.close()
    }

    private func accept(_ hello: Message.Hello, on connection: any TransportConnection, now: Timestamp) {
        guard hello.protocolVersion == tickwireProtocolVersion else {
            return reject(connection, .versionMismatch,
                "the server speaks protocol version \(tickwireProtocolVersion), the client \(hello.protocolVersion)")
        }
        guard hello.schemaFingerprint == game.schema.fingerprint else {
            return reject(connection, .schemaMismatch,
                "the server's schema fingerprint is \(hex(game.schema.fingerprint)), the client's \(hex(hello.schemaFingerprint))")
        }
        let room: Room<G>
        if let existing = roomsByName[hello.room] {
            room = existing
        } else if configuration.createsRoomsOnDemand && roomOrder.count < configuration.maximumRooms {
            room = openRoom(named: hello.room)
        } else if configuration.createsRoomsOnDemand {
            return reject(connection, .unknownRoom, "the server runs its most rooms (\(configuration.maximumRooms)); there is no room named '\(hello.room)'")
        } else {
            return reject(connection, .unknownRoom, "there is no room named '\(hello.room)'")
        }
        let compression = hello.compressionModes.choose(from: configuration.compressionPreference)

        if let token = hello.resumeToken, let client = room.client(withToken: token) {
            if let old = client.connection {
                client.send(.disconnect(Message.Disconnect(reason: .replaced)), now: now)
                old.close()
            }
            do {
                try client.resume(on: connection, compression: compression, configuration: configuration, now: now)
            } catch {
                return reject(connection, .unspecified, "could not set up compression: \(error)")
            }
            return welcome(client, in: room, compression: compression, on: connection)
        }
        guard !room.isFull else {
            return reject(connection, .roomFull, "room '\(room.name)' holds its maximum of \(configuration.roomCapacity) clients")
        }
        let id = nextClientID
        nextClientID &+= 1
        if nextClientID == 0 { nextClientID = 1 }
        let client: RoomClient<G>
        do {
            client = try RoomClient(id: id, token: makeToken(), connection: connection, compression: compression,
                                    configuration: configuration, now: now)
        } catch {
            return reject(connection, .unspecified, "could not set up compression: \(error)")
        }
        room.admit(client, payload: hello.payload)
        welcome(client, in: room, compression: compression, on: connection)
    }

    private func welcome(_ client: RoomClient<G>, in room: Room<G>, compression: CompressionMode, on connection: any TransportConnection) {
        let welcome = Message.Welcome(
            clientID: client.id, tickRate: UInt16(clamping: room.loop.rate), currentTick: room.tick,
            serverTime: UInt64(max(0, clock.now.nanoseconds / 1000)), compression: compression, resumeToken: client.token)
        // The welcome is part of the handshake: never compressed, never in the compression stream.
        FrameCompressor.uncompressed(limits: configuration.frameLimits).send(.welcome(welcome), over: connection)
    }

    private func makeToken() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            var word: UInt64
            if seededTokens != nil {
                word = seededTokens?.next() ?? 0
            } else {
                var system = SystemRandomNumberGenerator()
                word = system.next()
            }
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return bytes
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}

@available(*, unavailable)
extension Host: Sendable {}
