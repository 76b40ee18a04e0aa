/// A netcode.io 1.02 client as a sans-IO state machine.
///
/// ``connect(token:now:)`` starts with the token's first server; feed every datagram to
/// ``receive(_:from:now:)``, call ``update(now:)`` regularly (requests, responses and keep-alives
/// at 10 Hz, timeouts, the next server on failure), and send what ``takeOutgoing()`` returns.
/// `now` is the Unix time in seconds (a virtual clock in tests). Ignored packets are counted in
/// ``ignoredPackets`` by the ``NetcodeError/Code`` of the check that refused them.
public struct NetcodeClient: Sendable {
    /// The current state.
    public private(set) var state: NetcodeClientState = .disconnected
    /// The token of the current connection attempt.
    public private(set) var token: ConnectToken?
    /// The index of the server tried in the token's address list.
    public private(set) var serverIndex = 0
    /// The slot the server gave this client (valid once connected).
    public private(set) var clientIndex: UInt32 = 0
    /// The server's max clients (valid once connected).
    public private(set) var maxClients: UInt32 = 0
    /// The packets ignored so far, by the reason they were refused.
    public private(set) var ignoredPackets: [NetcodeError.Code: Int] = [:]

    private var sequence: UInt64 = 0
    private var replayProtection = ReplayProtection()
    private var connectStartTime: Double = 0
    private var lastSendTime: Double = -.infinity
    private var lastReceiveTime: Double = 0
    private var challengeSequence: UInt64 = 0
    private var challengeToken: [UInt8] = []
    private var outgoing: [NetcodeDatagram] = []
    private var received: [[UInt8]] = []

    /// A disconnected client.
    public init() {}

    /// The address of the server being tried or connected to.
    public var serverAddress: NetcodeAddress? {
        guard let token, token.serverAddresses.indices.contains(serverIndex) else { return nil }
        return token.serverAddresses[serverIndex]
    }

    /// Starts connecting with `token`, to its first server. An inconsistent token sets ``NetcodeClientState/invalidConnectToken``.
    ///
    /// - Parameters:
    ///   - token: The connect token from the web backend.
    ///   - now: The Unix time in seconds.
    public mutating func connect(token: ConnectToken, now: Double) {
        disconnect(now: now)
        guard (1...Netcode.maxServersPerConnect).contains(token.serverAddresses.count), token.createTimestamp <= token.expireTimestamp
        else {
            state = .invalidConnectToken
            return
        }
        self.token = token
        serverIndex = 0
        connectStartTime = now
        resetForNextServer(now: now)
    }

    /// Reads a serialized token and starts connecting with it; a token that does not read sets ``NetcodeClientState/invalidConnectToken``.
    ///
    /// - Parameters:
    ///   - bytes: The 2048 bytes of the token.
    ///   - now: The Unix time in seconds.
    /// - Throws: ``NetcodeError`` telling why the token does not read (the state is then `invalidConnectToken`).
    public mutating func connect(tokenBytes bytes: [UInt8], now: Double) throws(NetcodeError) {
        do throws(NetcodeError) {
            connect(token: try ConnectToken(bytes: bytes), now: now)
        } catch {
            disconnect(now: now)
            state = .invalidConnectToken
            throw error
        }
    }

    private mutating func resetForNextServer(now: Double) {
        sequence = 0
        replayProtection = ReplayProtection()
        lastSendTime = -.infinity
        lastReceiveTime = now
        challengeSequence = 0
        challengeToken = []
        received.removeAll()
        state = .sendingConnectionRequest
    }

    /// Moves to the token's next server; false when there is none.
    private mutating func connectToNextServer(now: Double) -> Bool {
        guard let token, serverIndex + 1 < token.serverAddresses.count else { return false }
        serverIndex += 1
        resetForNextServer(now: now)
        return true
    }

    private mutating func fail(_ errorState: NetcodeClientState, now: Double) {
        if connectToNextServer(now: now) { return }
        state = errorState
    }

    /// Takes the datagrams to send, in order.
    ///
    /// - Returns: The datagrams produced since the last call.
    public mutating func takeOutgoing() -> [NetcodeDatagram] {
        defer { outgoing.removeAll(keepingCapacity: true) }
        return outgoing
    }

    /// Takes the payloads received from the server while connected, in order.
    ///
    /// - Returns: The payloads since the last call.
    public mutating func takeReceived() -> [[UInt8]] {
        defer { received.removeAll(keepingCapacity: true) }
        return received
    }

    /// Processes one received datagram; a packet that fails any check is ignored and counted.
    ///
    /// - Parameters:
    ///   - datagram: The bytes received.
    ///   - address: The sender; only the current server is listened to.
    ///   - now: The Unix time in seconds.
    public mutating func receive(_ datagram: [UInt8], from address: NetcodeAddress, now: Double) {
        do throws(NetcodeError) {
            try process(datagram, from: address, now: now)
        } catch {
            ignoredPackets[error.code, default: 0] += 1
        }
    }

    private mutating func process(_ datagram: [UInt8], from address: NetcodeAddress, now: Double) throws(NetcodeError) {
        guard let token, state.isConnecting || state == .connected else { throw .invalidState("receive", state: "\(state)") }
        guard address == serverAddress else { throw .unexpectedSender(address) }
        guard datagram.count <= Netcode.maxDatagramBytes else {
            throw .wrongSize("packet", size: datagram.count, expected: "at most \(Netcode.maxDatagramBytes)")
        }
        var window: ReplayProtection? = replayProtection
        let packet = try NetcodePacket.read(
            datagram, key: token.serverToClientKey, protocolID: token.protocolID, now: Netcode.unixSeconds(now),
            accepted: NetcodePacket.acceptedByClient, replayProtection: &window)
        if let window { replayProtection = window }
        switch (packet.packet, state) {
        case (.connectionDenied, .sendingConnectionRequest), (.connectionDenied, .sendingConnectionResponse):
            fail(.connectionDenied, now: now)
        case (.connectionChallenge(let challengeSequence, let challengeToken), .sendingConnectionRequest):
            self.challengeSequence = challengeSequence
            self.challengeToken = challengeToken
            lastReceiveTime = now
            lastSendTime = -.infinity
            state = .sendingConnectionResponse
        case (.keepAlive(let clientIndex, let maxClients), .sendingConnectionResponse):
            self.clientIndex = clientIndex
            self.maxClients = maxClients
            lastReceiveTime = now
            state = .connected
        case (.keepAlive, .connected):
            lastReceiveTime = now
        case (.payload(let payload), .connected):
            lastReceiveTime = now
            received.append(payload)
        case (.disconnect, .connected):
            state = .disconnected
        default:
            throw .invalidState("accept a \(packet.packet.type) packet", state: "\(state)")
        }
    }

    /// Sends what is due (a request, a response or a keep-alive at 10 Hz) and checks expiry and timeouts.
    ///
    /// - Parameter now: The Unix time in seconds.
    public mutating func update(now: Double) {
        guard let token else { return }
        if state.isConnecting || state == .connected, lastSendTime + 1.0 / Netcode.packetSendRate < now {
            switch state {
            case .sendingConnectionRequest: sendPacket(.connectionRequest(.init(token: token)), now: now)
            case .sendingConnectionResponse:
                sendPacket(.connectionResponse(challengeSequence: challengeSequence, challengeToken: challengeToken), now: now)
            default: sendPacket(.keepAlive(clientIndex: 0, maxClients: 0), now: now)
            }
        }
        if state.isConnecting && now - connectStartTime >= Double(token.expireTimestamp - token.createTimestamp) {
            state = .connectTokenExpired
            return
        }
        let timedOut = token.timeoutSeconds > 0 && lastReceiveTime + Double(token.timeoutSeconds) < now
        guard timedOut else { return }
        switch state {
        case .sendingConnectionRequest: fail(.connectionRequestTimedOut, now: now)
        case .sendingConnectionResponse: fail(.connectionResponseTimedOut, now: now)
        case .connected: state = .connectionTimedOut
        default: break
        }
    }

    /// Sends a payload to the server.
    ///
    /// - Parameters:
    ///   - payload: 1 to 1200 bytes.
    ///   - now: The Unix time in seconds.
    /// - Throws: ``NetcodeError``: `invalidState` when not connected, `outOfRange` for the payload size.
    public mutating func send(_ payload: [UInt8], now: Double) throws(NetcodeError) {
        guard state == .connected else { throw .invalidState("send a payload", state: "\(state)") }
        guard (1...Netcode.maxPayloadBytes).contains(payload.count) else {
            throw .outOfRange("payload size", value: payload.count, range: 1...Netcode.maxPayloadBytes)
        }
        sendPacket(.payload(payload), now: now)
    }

    /// Disconnects: when connected, ten disconnect packets go to the server first. The state becomes ``NetcodeClientState/disconnected``.
    ///
    /// - Parameter now: The Unix time in seconds.
    public mutating func disconnect(now: Double) {
        if state == .connected {
            for _ in 0..<Netcode.disconnectPacketCount { sendPacket(.disconnect, now: now) }
        }
        if state.isConnecting || state == .connected { state = .disconnected }
    }

    private mutating func sendPacket(_ packet: NetcodePacket, now: Double) {
        guard let token, let address = serverAddress else { return }
        do throws(NetcodeError) {
            let bytes = try packet.written(sequence: sequence, key: token.clientToServerKey, protocolID: token.protocolID)
            outgoing.append(NetcodeDatagram(bytes: bytes, address: address))
        } catch {
            // Only a payload can fail to write, and send(_:now:) checks its size first.
            preconditionFailure("netcode client wrote an invalid packet: \(error)")
        }
        sequence &+= 1  // Wraps only after 2^64 packets.
        lastSendTime = now
    }
}
