/// A netcode.io 1.02 dedicated server as a sans-IO state machine.
///
/// Feed it every datagram with ``receive(_:from:now:)``, call ``update(now:)`` regularly (keep-
/// alives, timeouts), and send what ``takeOutgoing()`` returns; ``takeEvents()`` tells the
/// application of connections, payloads and disconnections. `now` is the Unix time in seconds
/// (a virtual clock in tests): tokens expire against it, and timeouts and send rates count in it.
///
/// Packets that must be ignored are ignored, as the standard says, and counted in
/// ``ignoredPackets`` by the ``NetcodeError/Code`` of the check that refused them.
public struct NetcodeServer: Sendable {
    /// The configuration.
    public let configuration: NetcodeServerConfiguration
    let challengeKey: NetcodeKey
    var challengeSequence: UInt64 = 0
    var globalSequence: UInt64 = Netcode.serverGlobalSequenceStart
    var slots: [Slot?]
    var mappings: EncryptionMappings
    var tokenHistory: ConnectTokenHistory
    var outgoing: [NetcodeDatagram] = []
    var events: [NetcodeServerEvent] = []
    var time: Double = 0
    /// The packets ignored so far, by the reason they were refused.
    public private(set) var ignoredPackets: [NetcodeError.Code: Int] = [:]

    struct Slot: Sendable {
        var clientID: UInt64
        var address: NetcodeAddress
        var mappingIndex: Int
        var timeoutSeconds: Int32
        var isConfirmed = false
        var sequence: UInt64 = 0
        var lastSendTime: Double
        var lastReceiveTime: Double
        var replayProtection = ReplayProtection()
    }

    /// A server with every slot free.
    ///
    /// - Parameter configuration: Protocol id, private key, public addresses, max clients.
    /// - Throws: ``NetcodeError`` with code `outOfRange` when max clients is not 1 to 256 or no public address is given.
    public init(configuration: NetcodeServerConfiguration) throws(NetcodeError) {
        guard (1...Netcode.maxClients).contains(configuration.maxClients) else {
            throw .outOfRange("max clients", value: configuration.maxClients, range: 1...Netcode.maxClients)
        }
        guard !configuration.publicAddresses.isEmpty else {
            throw .outOfRange("public address count", value: 0, range: 1...Netcode.maxServersPerConnect)
        }
        self.configuration = configuration
        challengeKey = configuration.challengeKey ?? .random()
        slots = Array(repeating: nil, count: configuration.maxClients)
        mappings = EncryptionMappings(capacity: configuration.maxClients * 4)
        tokenHistory = ConnectTokenHistory(capacity: configuration.maxClients * 8)
    }

    /// The number of connected clients.
    public var connectedClientCount: Int { slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// Whether slot `clientIndex` holds a connected client.
    ///
    /// - Parameter clientIndex: The slot.
    /// - Returns: true when a client is connected there.
    public func isClientConnected(_ clientIndex: Int) -> Bool { slots.indices.contains(clientIndex) && slots[clientIndex] != nil }

    /// The address of the client in slot `clientIndex`, if one is connected.
    ///
    /// - Parameter clientIndex: The slot.
    /// - Returns: The client's address, or nil.
    public func clientAddress(_ clientIndex: Int) -> NetcodeAddress? {
        slots.indices.contains(clientIndex) ? slots[clientIndex]?.address : nil
    }

    /// Takes the datagrams to send, in order.
    ///
    /// - Returns: The datagrams produced since the last call.
    public mutating func takeOutgoing() -> [NetcodeDatagram] {
        defer { outgoing.removeAll(keepingCapacity: true) }
        return outgoing
    }

    /// Takes the events for the application, in order.
    ///
    /// - Returns: The events since the last call.
    public mutating func takeEvents() -> [NetcodeServerEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Processes one received datagram; a packet that fails any check is ignored and counted.
    ///
    /// - Parameters:
    ///   - datagram: The bytes received.
    ///   - address: The sender.
    ///   - now: The Unix time in seconds.
    public mutating func receive(_ datagram: [UInt8], from address: NetcodeAddress, now: Double) {
        time = now
        do throws(NetcodeError) {
            try process(datagram, from: address)
        } catch {
            ignoredPackets[error.code, default: 0] += 1
        }
    }

    private mutating func process(_ datagram: [UInt8], from address: NetcodeAddress) throws(NetcodeError) {
        guard datagram.count > 1 else { throw .wrongSize("packet", size: datagram.count, expected: "at least 2") }
        guard datagram.count <= Netcode.maxDatagramBytes else {
            throw .wrongSize("packet", size: datagram.count, expected: "at most \(Netcode.maxDatagramBytes)")
        }
        let clientIndex = slots.firstIndex { $0?.address == address }
        let mappingIndex: Int? = clientIndex.flatMap { slots[$0]?.mappingIndex } ?? mappings.find(address, now: time)
        let key = mappingIndex.flatMap { mappings[$0]?.receiveKey }
        if key == nil && datagram[0] != NetcodePacketType.connectionRequest.rawValue { throw .noEncryptionMapping }
        var window = clientIndex.flatMap { slots[$0]?.replayProtection }
        let received = try NetcodePacket.read(
            datagram, key: key, protocolID: configuration.protocolID, now: Netcode.unixSeconds(time),
            accepted: NetcodePacket.acceptedByServer,
            replayProtection: &window)
        if let clientIndex, let window { slots[clientIndex]?.replayProtection = window }
        switch received.packet {
        case .connectionRequest(let request):
            try processRequest(request, from: address)
        case .connectionResponse(let challengeSequence, let token):
            guard let mappingIndex else { throw .noEncryptionMapping }
            try processResponse(challengeSequence: challengeSequence, token: token, from: address, mappingIndex: mappingIndex)
        case .keepAlive:
            guard let clientIndex else { throw .invalidState("accept a keep-alive", state: "no client at \(address)") }
            slots[clientIndex]?.lastReceiveTime = time
            slots[clientIndex]?.isConfirmed = true
        case .payload(let payload):
            guard let clientIndex else { throw .invalidState("accept a payload", state: "no client at \(address)") }
            slots[clientIndex]?.lastReceiveTime = time
            slots[clientIndex]?.isConfirmed = true
            events.append(.payload(clientIndex: clientIndex, bytes: payload, sequence: received.sequence))
        case .disconnect:
            guard let clientIndex else { throw .invalidState("accept a disconnect", state: "no client at \(address)") }
            disconnectClient(clientIndex, reason: .clientDisconnected, sendDisconnectPackets: false)
        case .connectionDenied, .connectionChallenge:
            throw .packetTypeNotAccepted(received.packet.type)
        }
    }

    /// Sends keep-alives to clients that were sent nothing for a tenth of a second, and disconnects
    /// clients that sent nothing within their token's timeout.
    ///
    /// - Parameter now: The Unix time in seconds.
    public mutating func update(now: Double) {
        time = now
        for index in slots.indices {
            guard let slot = slots[index], slot.lastSendTime + 1.0 / Netcode.packetSendRate <= now else { continue }
            sendToClient(index, .keepAlive(clientIndex: UInt32(index), maxClients: UInt32(configuration.maxClients)))
        }
        for index in slots.indices {
            guard let slot = slots[index], slot.timeoutSeconds > 0 else { continue }
            if slot.lastReceiveTime + Double(slot.timeoutSeconds) <= now {
                disconnectClient(index, reason: .timedOut, sendDisconnectPackets: false)
            }
        }
    }

    /// Sends a payload to the client in slot `clientIndex`; an unconfirmed client gets a keep-alive before it.
    ///
    /// - Parameters:
    ///   - payload: 1 to 1200 bytes.
    ///   - clientIndex: The client's slot.
    ///   - now: The Unix time in seconds.
    /// - Throws: ``NetcodeError``: `outOfRange` for the payload size, `invalidState` when no client is in the slot.
    public mutating func send(_ payload: [UInt8], toClient clientIndex: Int, now: Double) throws(NetcodeError) {
        time = now
        guard (1...Netcode.maxPayloadBytes).contains(payload.count) else {
            throw .outOfRange("payload size", value: payload.count, range: 1...Netcode.maxPayloadBytes)
        }
        guard let slot = slots.indices.contains(clientIndex) ? slots[clientIndex] : nil else {
            throw .invalidState("send a payload", state: "slot \(clientIndex) is free")
        }
        if !slot.isConfirmed {
            sendToClient(clientIndex, .keepAlive(clientIndex: UInt32(clientIndex), maxClients: UInt32(configuration.maxClients)))
        }
        sendToClient(clientIndex, .payload(payload))
    }

    /// Disconnects the client in slot `clientIndex`: ten disconnect packets, then the slot is freed.
    ///
    /// - Parameters:
    ///   - clientIndex: The client's slot; a free slot is left as it is.
    ///   - now: The Unix time in seconds.
    public mutating func disconnect(client clientIndex: Int, now: Double) {
        time = now
        guard isClientConnected(clientIndex) else { return }
        disconnectClient(clientIndex, reason: .serverDisconnected, sendDisconnectPackets: true)
    }

    /// Disconnects every client (ten disconnect packets each).
    ///
    /// - Parameter now: The Unix time in seconds.
    public mutating func disconnectAll(now: Double) {
        for index in slots.indices { disconnect(client: index, now: now) }
    }

    mutating func disconnectClient(_ index: Int, reason: NetcodeServerEvent.DisconnectReason, sendDisconnectPackets: Bool) {
        guard let slot = slots[index] else { return }
        if sendDisconnectPackets {
            for _ in 0..<Netcode.disconnectPacketCount { sendToClient(index, .disconnect) }
        }
        mappings.remove(slot.address)
        slots[index] = nil
        events.append(.disconnected(clientIndex: index, clientID: slot.clientID, reason: reason))
    }

    /// Writes a packet to a connected client with the slot's sequence and the mapping's send key.
    mutating func sendToClient(_ index: Int, _ packet: NetcodePacket) {
        guard let slot = slots[index], mappings.touch(slot.mappingIndex, address: slot.address, now: time),
            let key = mappings[slot.mappingIndex]?.sendKey
        else { return }
        emit(packet, sequence: slot.sequence, key: key, to: slot.address)
        slots[index]?.sequence &+= 1  // Wraps only after 2^64 packets to one client.
        slots[index]?.lastSendTime = time
    }

    /// Writes a packet outside any slot (challenge, denied) with the global sequence.
    mutating func sendGlobal(_ packet: NetcodePacket, to address: NetcodeAddress, key: NetcodeKey) {
        emit(packet, sequence: globalSequence, key: key, to: address)
        globalSequence &+= 1  // Wraps only after 2^63 global packets.
    }

    private mutating func emit(_ packet: NetcodePacket, sequence: UInt64, key: NetcodeKey, to address: NetcodeAddress) {
        do throws(NetcodeError) {
            outgoing.append(
                NetcodeDatagram(
                    bytes: try packet.written(sequence: sequence, key: key, protocolID: configuration.protocolID), address: address))
        } catch {
            // Only a payload can fail to write, and send(_:toClient:now:) checks its size first.
            preconditionFailure("netcode server wrote an invalid packet: \(error)")
        }
    }
}
