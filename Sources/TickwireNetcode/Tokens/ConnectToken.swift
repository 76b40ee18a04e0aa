/// A connect token as the web backend hands it to a client: public data the client reads, and the
/// encrypted private part only servers read. Serialized to 2048 bytes.
///
/// Layout: version info (13), protocol id, create timestamp, expire timestamp (`uint64` each),
/// nonce (24), encrypted private data (1024), timeout seconds (`int32`), the server addresses
/// (count `uint32`, then each address), client-to-server key (32), server-to-client key (32),
/// zero padding to 2048.
public struct ConnectToken: Hashable, Sendable {
    /// The application's 64-bit protocol id.
    public var protocolID: UInt64
    /// The Unix time the token was created.
    public var createTimestamp: UInt64
    /// The Unix time the token expires.
    public var expireTimestamp: UInt64
    /// The 24-byte nonce of the private part.
    public var nonce: [UInt8]
    /// The 1024 bytes of encrypted private connect token data.
    public var encryptedPrivateData: [UInt8]
    /// Seconds without packets before a timeout (negative disables it).
    public var timeoutSeconds: Int32
    /// The servers to try, in order.
    public var serverAddresses: [NetcodeAddress]
    /// The key of packets from the client to the server.
    public var clientToServerKey: NetcodeKey
    /// The key of packets from the server to the client.
    public var serverToClientKey: NetcodeKey

    /// Mints a connect token, as the web backend does after authenticating a client.
    ///
    /// - Parameters:
    ///   - privatePart: The private token (client id, timeout, addresses, keys, user data).
    ///   - protocolID: The application's protocol id.
    ///   - createTimestamp: The Unix time now.
    ///   - expireTimestamp: The Unix time the token expires (not before `createTimestamp`).
    ///   - privateKey: The key shared by the web backend and the servers.
    ///   - nonce: The 24-byte nonce; a fresh random one (`randombytes_buf`) when nil, as the standard asks.
    /// - Returns: The connect token.
    /// - Throws: ``NetcodeError``: `invalidTimestamps`, or `wrongSize` for a nonce that is not 24 bytes.
    public static func generate(
        _ privatePart: ConnectTokenPrivate, protocolID: UInt64, createTimestamp: UInt64, expireTimestamp: UInt64,
        privateKey: NetcodeKey, nonce: [UInt8]? = nil
    ) throws(NetcodeError) -> ConnectToken {
        guard createTimestamp <= expireTimestamp else { throw .invalidTimestamps(create: createTimestamp, expire: expireTimestamp) }
        let nonce = nonce ?? Sodium.randomBytes(Netcode.connectTokenNonceBytes)
        let encrypted = try privatePart.encrypted(protocolID: protocolID, expireTimestamp: expireTimestamp, nonce: nonce, key: privateKey)
        return ConnectToken(
            protocolID: protocolID, createTimestamp: createTimestamp, expireTimestamp: expireTimestamp, nonce: nonce,
            encryptedPrivateData: encrypted, timeoutSeconds: privatePart.timeoutSeconds, serverAddresses: privatePart.serverAddresses,
            clientToServerKey: privatePart.clientToServerKey, serverToClientKey: privatePart.serverToClientKey)
    }

    private init(
        protocolID: UInt64, createTimestamp: UInt64, expireTimestamp: UInt64, nonce: [UInt8], encryptedPrivateData: [UInt8],
        timeoutSeconds: Int32, serverAddresses: [NetcodeAddress], clientToServerKey: NetcodeKey, serverToClientKey: NetcodeKey
    ) {
        self.protocolID = protocolID
        self.createTimestamp = createTimestamp
        self.expireTimestamp = expireTimestamp
        self.nonce = nonce
        self.encryptedPrivateData = encryptedPrivateData
        self.timeoutSeconds = timeoutSeconds
        self.serverAddresses = serverAddresses
        self.clientToServerKey = clientToServerKey
        self.serverToClientKey = serverToClientKey
    }

    /// The 2048 bytes of the token.
    ///
    /// - Returns: ``Netcode/connectTokenBytes`` bytes.
    public func serialized() -> [UInt8] {
        var writer = ByteWriter(capacity: Netcode.connectTokenBytes)
        writer.write(bytes: Netcode.versionInfo)
        writer.write(protocolID)
        writer.write(createTimestamp)
        writer.write(expireTimestamp)
        writer.write(bytes: nonce)
        writer.write(bytes: encryptedPrivateData)
        writer.write(UInt32(bitPattern: timeoutSeconds))
        writer.write(UInt32(serverAddresses.count))
        for address in serverAddresses { address.write(to: &writer) }
        writer.write(bytes: clientToServerKey.bytes)
        writer.write(bytes: serverToClientKey.bytes)
        writer.pad(to: Netcode.connectTokenBytes)
        return writer.bytes
    }

    /// Reads a connect token, checking what a client checks before it connects.
    ///
    /// - Parameter bytes: Exactly 2048 bytes.
    /// - Throws: ``NetcodeError``: `wrongSize`, `versionMismatch`, `invalidTimestamps` (created after it
    ///   expires), `invalidServerAddressCount`, `invalidAddressType`.
    public init(bytes: [UInt8]) throws(NetcodeError) {
        guard bytes.count == Netcode.connectTokenBytes else {
            throw .wrongSize("connect token", size: bytes.count, expected: "\(Netcode.connectTokenBytes)")
        }
        var reader = ByteReader(bytes, what: "connect token")
        guard try reader.readBytes(Netcode.versionInfoBytes) == Netcode.versionInfo else { throw .versionMismatch }
        protocolID = try reader.readUInt64()
        createTimestamp = try reader.readUInt64()
        expireTimestamp = try reader.readUInt64()
        guard createTimestamp <= expireTimestamp else { throw .invalidTimestamps(create: createTimestamp, expire: expireTimestamp) }
        nonce = try reader.readBytes(Netcode.connectTokenNonceBytes)
        encryptedPrivateData = try reader.readBytes(Netcode.connectTokenPrivateBytes)
        timeoutSeconds = Int32(bitPattern: try reader.readUInt32())
        let count = try reader.readUInt32()
        guard count >= 1 && count <= UInt32(Netcode.maxServersPerConnect) else { throw .invalidServerAddressCount(Int(clamping: count)) }
        var addresses: [NetcodeAddress] = []
        for _ in 0..<count { addresses.append(try NetcodeAddress.read(from: &reader)) }
        serverAddresses = addresses
        clientToServerKey = NetcodeKey(unchecked: try reader.readBytes(Netcode.keyBytes))
        serverToClientKey = NetcodeKey(unchecked: try reader.readBytes(Netcode.keyBytes))
    }
}
