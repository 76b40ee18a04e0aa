import TickwireCodec

extension Host {
    /// What the first frame of a connection turned out to be.
    enum FirstFrame {
        /// A well-formed, uncompressed hello.
        case hello(Message.Hello)
        /// Anything else: the reject reason and the words that say what is wrong.
        case refused(Message.Reject.Reason, String)
    }

    /// Reads a connection's first frame as a hello, or says exactly why it is not one: a frame
    /// that does not parse, another message type, a compressed hello, a hello of another
    /// protocol version, or a hello that breaks a limit or a rule of PROTOCOL.md 5.3 (each with
    /// the codec's own words: which field, its size and the limit, which bits).
    ///
    /// - Parameters:
    ///   - bytes: The frame.
    ///   - limits: The host's frame limits.
    /// - Returns: The hello, or the reason and text of the reject.
    static func readHello(_ bytes: [UInt8], limits: FrameLimits) -> FirstFrame {
        // Another protocol version may lay out its hello differently: when its version is
        // readable, refuse it for what it is before decoding the rest.
        if let version = Message.Hello.protocolVersion(ofFrame: bytes), version != tickwireProtocolVersion {
            return .refused(.versionMismatch, versionText(client: version))
        }
        let frame: Frame
        do {
            frame = try Frame(parsing: bytes, limits: limits)
        } catch {
            return .refused(.invalidHello, "the first frame must be a hello, and it is not a valid frame: \(error)")
        }
        guard frame.type == .hello else {
            return .refused(.invalidHello, "the first frame must be a hello, not a \(frame.type) message")
        }
        guard !frame.isCompressed else {
            return .refused(.invalidHello, "the hello must not be compressed (PROTOCOL.md 5.2): its compressed flag is set")
        }
        do {
            guard case .hello(let hello) = try Message(type: frame.type, body: frame.body, limits: limits) else {
                return .refused(.invalidHello, "the first frame must be a hello")
            }
            return .hello(hello)
        } catch {
            return .refused(.invalidHello, "the hello is malformed: \(error)")
        }
    }

    static func versionText(client: UInt16) -> String {
        "the server speaks protocol version \(tickwireProtocolVersion), the client \(client)"
    }

    func handshake(now: Timestamp) {
        var waiting: [Pending] = []
        for entry in pending {
            var first: FirstFrame? = entry.hello.map { .hello($0) }
            var closed = false
            for event in entry.connection.drain() {
                switch event {
                case .frame(let bytes):
                    if first == nil { first = Self.readHello(bytes, limits: configuration.frameLimits) }
                case .closed:
                    closed = true
                }
                if first != nil && entry.hello == nil { break }
            }
            if closed { continue }
            let timedOut = now - entry.acceptedAt > configuration.handshakeTimeout
            switch first {
            case .hello(let hello):
                guard !accept(hello, on: entry.connection, now: now) else { continue }
                // The directory has not placed the room yet: the hello waits, within the handshake timeout.
                if timedOut {
                    entry.connection.close(
                        code: .idleTimeout, reason: "the room directory did not place room '\(hello.room)' in time")
                } else {
                    var held = entry
                    held.hello = hello
                    waiting.append(held)
                }
            case .refused(let reason, let text):
                reject(entry.connection, reason, text)
            case nil:
                if timedOut {
                    entry.connection.close(code: .idleTimeout, reason: "no hello within \(configuration.handshakeTimeout)")
                } else {
                    waiting.append(entry)
                }
            }
        }
        pending = waiting
    }

    /// Sends a reject and closes with the reason's code (``Message/Reject/Reason/closeCode``)
    /// and the same words (cut to fit a close frame); logs it (`info`; a redirect and an invalid hello `debug`, with
    /// the reason, its code, the words, the room and client when known) and reports the refusal
    /// (``HostEvent/Kind/refused``) unless it is a redirect.
    ///
    /// - Parameters:
    ///   - room: The room the hello named, when one did.
    ///   - clientID: The held player a refused resume asked for, if any.
    ///   - identity: The identity a verified connect token gave, if any.
    func reject(
        _ connection: any TransportConnection, _ reason: Message.Reject.Reason, _ text: String, room: String? = nil,
        clientID: UInt32? = nil, identity: PlayerIdentity? = nil
    ) {
        rejections[reason, default: 0] += 1
        let text = text.prefix(utf8Bytes: configuration.frameLimits.maximumTextBytes)
        var metadata = ["reason": "\(reason)", "code": "\(reason.rawValue)", "text": text, "connection": "\(connection.connectionID)"]
        if let room { metadata["room"] = room }
        if let clientID { metadata["client"] = "\(clientID)" }
        if let identity { metadata["user"] = "\(identity.userID)" }
        // A redirect sends the player on rather than away, and an invalid hello is any stranger's
        // garbage (a flood of it must not flood the log at info): both below the refusals.
        configuration.logSink.log(
            reason == .redirect || reason == .invalidHello ? .debug : .info,
            reason == .redirect ? "redirected a hello" : "refused a hello", metadata: metadata, source: "host")
        if reason != .redirect {
            report(
                HostEvent(
                    kind: .refused, room: room, clientID: clientID, refusal: Message.Reject(reason: reason, text: text), identity: identity)
            )
        }
        FrameCompressor.uncompressed(limits: configuration.frameLimits).send(
            .reject(Message.Reject(reason: reason, text: text)), over: connection)
        connection.close(code: reason.closeCode, reason: text)
    }

    /// Answers a hello: a welcome or a reject, or nothing yet while the room directory has not
    /// placed its room.
    ///
    /// - Returns: `false` when the hello must wait for the directory (ask again next pass).
    private func accept(_ hello: Message.Hello, on connection: any TransportConnection, now: Timestamp) -> Bool {
        guard !isShuttingDown else {
            if let url = fleet?.directory.anotherProcessURL() {
                redirect(connection, to: url)
            } else {
                reject(connection, .serverShuttingDown, "the server is shutting down", room: hello.room)
            }
            return true
        }
        let matches = refusalBeforeRoom(hello) == nil
        var tokenCheck: TokenCheck?
        if matches, roomsByName[hello.room] == nil, opensRoom(named: hello.room), fleet == nil || hello.resumeToken == nil {
            // A room that is not open here opens only for a hello whose connect token passes
            // (PROTOCOL.md 5.3.1): a forged, expired or other room's token neither opens a room
            // nor has the directory place one. (In a fleet a hello with a resume token may resume
            // a session of the room's saved state, so its room is placed first.)
            let check = checkToken(of: hello, room: hello.room, on: connection)
            if case .refused(let refusal, let identity) = check {
                if hello.resumeToken != nil { reconnects += 1 }  // as answer(_:on:now:tokenCheck:) counts it
                reject(connection, refusal.reason, refusal.text, room: hello.room, identity: identity)
                return true
            }
            tokenCheck = check
        }
        if fleet != nil, matches, roomsByName[hello.room] == nil {
            // A room this host does not run: the directory says where it lives (answer() reports mismatches).
            switch placeRoom(named: hello.room, now: now) {
            case .waiting:
                return false
            case .refused(.redirect, let url):
                redirect(connection, to: url)
                return true
            case .refused(let reason, let text):
                reject(connection, reason, text, room: hello.room)
                return true
            case .ready:
                break
            }
        }
        answer(hello, on: connection, now: now, tokenCheck: tokenCheck)
        return true
    }

    /// Why a hello is refused whatever its room: another protocol version, another schema, or a
    /// schema with text fields (protocol 1.2, §5.3) for a client that does not decode them.
    private func refusalBeforeRoom(_ hello: Message.Hello) -> (reason: Message.Reject.Reason, text: String)? {
        guard hello.protocolVersion == tickwireProtocolVersion else {
            return (.versionMismatch, Self.versionText(client: hello.protocolVersion))
        }
        guard hello.schemaFingerprint == game.schema.fingerprint else {
            return (.schemaMismatch, schemaMismatchText(client: hello.schemaFingerprint))
        }
        guard hello.offersTextFields || !game.schema.needsTextFields else { return (.versionMismatch, Self.textFieldsText) }
        return nil
    }

    /// Whether a hello naming a room that is not open here would open it: rooms open on demand
    /// (or, in a fleet, it is one of the configured rooms the directory places) and the host runs
    /// fewer than its most rooms.
    private func opensRoom(named name: String) -> Bool {
        let mayOpen = configuration.createsRoomsOnDemand || (fleet != nil && configuration.rooms.contains(name))
        return mayOpen && roomOrder.count < configuration.maximumRooms
    }

    /// Answers a hello whose room is open here, or opens it on demand.
    ///
    /// - Parameter tokenCheck: The hello's connect token, checked already before its room was
    ///   opened; `nil` to check it here.
    private func answer(_ hello: Message.Hello, on connection: any TransportConnection, now: Timestamp, tokenCheck: TokenCheck?) {
        if hello.resumeToken != nil { reconnects += 1 }
        if let (reason, text) = refusalBeforeRoom(hello) {
            return reject(connection, reason, text, room: hello.room)
        }
        let room: Room<G>
        if let existing = roomsByName[hello.room] {
            room = existing
        } else if configuration.createsRoomsOnDemand && roomOrder.count < configuration.maximumRooms {
            room = openRoomOnDemand(named: hello.room)
        } else if configuration.createsRoomsOnDemand {
            return reject(
                connection, .unknownRoom,
                "the server runs its most rooms (\(configuration.maximumRooms)); there is no room named '\(hello.room)'",
                room: hello.room)
        } else {
            return reject(connection, .unknownRoom, "there is no room named '\(hello.room)'", room: hello.room)
        }
        // Streaming compression needs every frame in order, which an unreliable transport does
        // not give (PROTOCOL.md 1A.1).
        let preference = configuration.compressionPreference.filter { connection.deliversFramesInOrder || $0 != .streaming }
        let compression = hello.compressionModes.choose(from: preference)
        let entropy = hello.offersEntropyDeltas && configuration.entropyDeltas
        let prediction = hello.offersMotionPrediction && configuration.motionPrediction
        let coding: DeltaCoding =
            switch (entropy, prediction) {
            case (true, true): .predictedEntropy
            case (true, false): .entropy
            case (false, _): .bitPacked
            }

        if let token = hello.resumeToken, let client = room.client(withToken: token) {
            // A resumed session is the player its connect token let in: the resume token takes
            // over, and a connect token the hello may also carry is not looked at.
            let request = AdmissionRequest(
                player: client.id, room: room.name, payload: hello.payload, isResuming: true, identity: client.identity)
            guard admits(request, in: room, on: connection) else { return }
            if let old = client.connection {
                client.send(.disconnect(Message.Disconnect(reason: .replaced)), now: now)
                old.close(code: Message.Disconnect.Reason.replaced.closeCode, reason: "the session was resumed on another connection")
            }
            do {
                try client.resume(on: connection, compression: compression, configuration: configuration, now: now)
            } catch {
                return reject(connection, .unspecified, "could not set up compression: \(error)", room: room.name, clientID: client.id)
            }
            client.deltaCoding = coding
            resumes += 1
            client.acceptsRenderTimes = hello.offersRenderTimes && game.compensatesLag
            client.acceptsPongHold = hello.offersPongHold
            welcome(client, in: room, compression: compression, on: connection)
            return report(HostEvent(kind: .resumed, room: room.name, clientID: client.id, identity: client.identity))
        }
        let verifiedToken: VerifiedConnectToken?
        let identity: PlayerIdentity?
        switch tokenCheck ?? checkToken(of: hello, room: room.name, on: connection) {
        case .anonymous:
            (verifiedToken, identity) = (nil, nil)
        case .verified(let verified):
            (verifiedToken, identity) = (verified, verified.identity)
        case .transport(let verified):
            (verifiedToken, identity) = (nil, verified)
        case .refused(let refusal, let refusedIdentity):
            return reject(connection, refusal.reason, refusal.text, room: room.name, identity: refusedIdentity)
        }
        if room.isFull {
            // Clients whose connections ended since the room's last tick (squatters resetting
            // together just before this hello) are held slots already: take their ends in now,
            // or the hello would be refused as roomFull for the rest of the tick.
            room.receive(now: now)
        }
        guard !room.isFull || room.hasHeldSlot else {
            return reject(
                connection, .roomFull, "room '\(room.name)' holds its maximum of \(configuration.roomCapacity) clients", room: room.name)
        }
        let id = nextClientID
        let request = AdmissionRequest(player: id, room: room.name, payload: hello.payload, isResuming: false, identity: identity)
        // The game decides before a held player loses its seat: a newcomer it refuses takes no one's place.
        guard admits(request, in: room, on: connection) else { return }
        if room.isFull { room.releaseOldestHeldSlot() }
        nextClientID &+= 1
        if nextClientID == 0 { nextClientID = 1 }
        let client: RoomClient<G>
        do {
            client = try RoomClient(
                id: id, token: makeToken(), connection: connection, compression: compression,
                configuration: configuration, now: now)
        } catch {
            return reject(connection, .unspecified, "could not set up compression: \(error)", room: room.name)
        }
        client.deltaCoding = coding
        client.acceptsRenderTimes = hello.offersRenderTimes && game.compensatesLag
        client.acceptsPongHold = hello.offersPongHold
        client.identity = identity
        if let verifiedToken { useToken(verifiedToken) }
        room.admit(client, payload: hello.payload)
        joins += 1
        welcome(client, in: room, compression: compression, on: connection)
        report(HostEvent(kind: .joined, room: room.name, clientID: id, identity: identity))
    }

    /// Asks the game whether `request` plays (``Game/admit(_:in:)``), and rejects the connection
    /// with the game's reason and words when it does not.
    ///
    /// - Returns: Whether the player was admitted.
    private func admits(_ request: AdmissionRequest, in room: Room<G>, on connection: any TransportConnection) -> Bool {
        guard case .refused(var reason, let text) = game.admit(request, in: room.state).decision else { return true }
        if !reason.isApplicationReason {
            configuration.logSink.log(
                .warning, "the game refused a player with a reason below 32768, which is Tickwire's; sent as 32768",
                metadata: ["room": room.name, "client": "\(request.player)", "reason": "\(reason.rawValue)"], source: "host")
            reason = .refusedByGame
        }
        reject(
            connection, reason, text, room: room.name, clientID: request.isResuming ? request.player : nil, identity: request.identity)
        return false
    }

    private func welcome(_ client: RoomClient<G>, in room: Room<G>, compression: CompressionMode, on connection: any TransportConnection) {
        let welcome = Message.Welcome(
            clientID: client.id, tickRate: UInt16(clamping: room.loop.rate), currentTick: room.tick,
            serverTime: UInt64(max(0, clock.now.nanoseconds / 1000)), compression: compression, resumeToken: client.token,
            deltaCoding: client.deltaCoding, acceptsRenderTimes: client.acceptsRenderTimes, acceptsPongHold: client.acceptsPongHold)
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

    /// The words of the reject of a client that does not offer text fields when the schema has them.
    static var textFieldsText: String { "the game's schema has text fields (protocol 1.2); the client does not offer them (hello bit 3)" }

    /// The words of a schema-mismatch reject: both fingerprints, then the game's version when it
    /// names one (``Game/version``), last, so that a long version is what the text limit cuts.
    func schemaMismatchText(client: UInt64) -> String {
        let fingerprints = "the server's schema fingerprint is \(hex(game.schema.fingerprint)), the client's \(hex(client))"
        guard let version = game.version, !version.isEmpty else { return fingerprints }
        return fingerprints + "; the server runs \(version)"
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}
