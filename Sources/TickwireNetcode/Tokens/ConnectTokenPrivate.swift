/// The private part of a connect token: what only the web backend and the dedicated servers read.
///
/// Serialized to 1024 bytes (client id, timeout, server addresses, the two keys, 256 bytes of
/// user data, zero padding), then encrypted in place over its first 1008 bytes with
/// XChaCha20-Poly1305-IETF, the last 16 bytes holding the tag. The associated data is the version
/// info, the protocol id and the expire timestamp, so none of them can be changed in transit.
public struct ConnectTokenPrivate: Hashable, Sendable {
    /// The globally unique id of the authenticated client.
    public var clientID: UInt64
    /// Seconds without packets before either side times out; negative disables timeouts (development only).
    public var timeoutSeconds: Int32
    /// The servers the client may connect to, tried in order (1 to 32).
    public var serverAddresses: [NetcodeAddress]
    /// The key of packets from the client to the server.
    public var clientToServerKey: NetcodeKey
    /// The key of packets from the server to the client.
    public var serverToClientKey: NetcodeKey
    /// 256 bytes of data specific to the protocol id, handed to the server application on connect.
    public var userData: [UInt8]

    /// A private connect token.
    ///
    /// - Parameters:
    ///   - clientID: The client's id.
    ///   - timeoutSeconds: The timeout in seconds (negative disables it).
    ///   - serverAddresses: 1 to 32 server addresses.
    ///   - clientToServerKey: The client-to-server key.
    ///   - serverToClientKey: The server-to-client key.
    ///   - userData: Exactly 256 bytes.
    /// - Throws: ``NetcodeError`` when there are not 1 to 32 addresses or not 256 bytes of user data.
    public init(
        clientID: UInt64, timeoutSeconds: Int32, serverAddresses: [NetcodeAddress], clientToServerKey: NetcodeKey,
        serverToClientKey: NetcodeKey, userData: [UInt8]
    ) throws(NetcodeError) {
        guard (1...Netcode.maxServersPerConnect).contains(serverAddresses.count) else {
            throw .invalidServerAddressCount(serverAddresses.count)
        }
        guard userData.count == Netcode.userDataBytes else {
            throw .wrongSize("user data", size: userData.count, expected: "\(Netcode.userDataBytes)")
        }
        self.clientID = clientID
        self.timeoutSeconds = timeoutSeconds
        self.serverAddresses = serverAddresses
        self.clientToServerKey = clientToServerKey
        self.serverToClientKey = serverToClientKey
        self.userData = userData
    }

    /// The 1024-byte plaintext: fields, then zero padding (the last 16 bytes are where the tag goes).
    ///
    /// - Returns: ``Netcode/connectTokenPrivateBytes`` bytes.
    public func serialized() -> [UInt8] {
        var writer = ByteWriter(capacity: Netcode.connectTokenPrivateBytes)
        writer.write(clientID)
        writer.write(UInt32(bitPattern: timeoutSeconds))
        writer.write(UInt32(serverAddresses.count))
        for address in serverAddresses { address.write(to: &writer) }
        writer.write(bytes: clientToServerKey.bytes)
        writer.write(bytes: serverToClientKey.bytes)
        writer.write(bytes: userData)
        writer.pad(to: Netcode.connectTokenPrivateBytes)
        return writer.bytes
    }

    /// Reads a decrypted private connect token.
    ///
    /// - Parameter plaintext: The decrypted bytes (1008 bytes, or all 1024).
    /// - Throws: ``NetcodeError`` when it is truncated, names 0 or more than 32 servers, or an unknown address type.
    public init(plaintext: [UInt8]) throws(NetcodeError) {
        var reader = ByteReader(plaintext, what: "private connect token")
        let clientID = try reader.readUInt64()
        let timeout = Int32(bitPattern: try reader.readUInt32())
        let count = try reader.readUInt32()
        guard count >= 1 && count <= UInt32(Netcode.maxServersPerConnect) else {
            throw .invalidServerAddressCount(Int(clamping: count))
        }
        var addresses: [NetcodeAddress] = []
        for _ in 0..<count { addresses.append(try NetcodeAddress.read(from: &reader)) }
        let clientToServer = NetcodeKey(unchecked: try reader.readBytes(Netcode.keyBytes))
        let serverToClient = NetcodeKey(unchecked: try reader.readBytes(Netcode.keyBytes))
        let userData = try reader.readBytes(Netcode.userDataBytes)
        try self.init(
            clientID: clientID, timeoutSeconds: timeout, serverAddresses: addresses, clientToServerKey: clientToServer,
            serverToClientKey: serverToClient, userData: userData)
    }

    /// The associated data of the private token's AEAD: version info, protocol id, expire timestamp.
    static func associatedData(protocolID: UInt64, expireTimestamp: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: Netcode.versionInfoBytes + 16)
        writer.write(bytes: Netcode.versionInfo)
        writer.write(protocolID)
        writer.write(expireTimestamp)
        return writer.bytes
    }

    /// Encrypts this token with the servers' private key (XChaCha20-Poly1305-IETF).
    ///
    /// - Parameters:
    ///   - protocolID: The application's protocol id (associated data).
    ///   - expireTimestamp: The Unix time the token expires at (associated data).
    ///   - nonce: The token's 24-byte nonce.
    ///   - key: The private key shared by the web backend and the servers.
    /// - Returns: The 1024 bytes of encrypted private connect token data (1008 encrypted, then the tag).
    /// - Throws: ``NetcodeError`` when the nonce is not 24 bytes.
    public func encrypted(protocolID: UInt64, expireTimestamp: UInt64, nonce: [UInt8], key: NetcodeKey) throws(NetcodeError) -> [UInt8] {
        guard nonce.count == Netcode.connectTokenNonceBytes else {
            throw .wrongSize("connect token nonce", size: nonce.count, expected: "\(Netcode.connectTokenNonceBytes)")
        }
        let plaintext = Array(serialized()[0..<(Netcode.connectTokenPrivateBytes - Netcode.macBytes)])
        return Sodium.sealXChaCha(
            plaintext, additionalData: Self.associatedData(protocolID: protocolID, expireTimestamp: expireTimestamp), nonce: nonce, key: key
        )
    }

    /// Decrypts and reads encrypted private connect token data.
    ///
    /// - Parameters:
    ///   - encrypted: The 1024 bytes of encrypted private connect token data.
    ///   - protocolID: The protocol id the token claims.
    ///   - expireTimestamp: The expire timestamp the token claims.
    ///   - nonce: The token's 24-byte nonce.
    ///   - key: The servers' private key.
    /// - Returns: The private connect token.
    /// - Throws: ``NetcodeError``: `wrongSize`, `authenticationFailed`, or what reading the plaintext throws.
    public static func decrypt(
        _ encrypted: [UInt8], protocolID: UInt64, expireTimestamp: UInt64, nonce: [UInt8], key: NetcodeKey
    ) throws(NetcodeError) -> ConnectTokenPrivate {
        guard encrypted.count == Netcode.connectTokenPrivateBytes else {
            throw .wrongSize("encrypted private connect token", size: encrypted.count, expected: "\(Netcode.connectTokenPrivateBytes)")
        }
        guard
            let plaintext = Sodium.openXChaCha(
                encrypted, additionalData: associatedData(protocolID: protocolID, expireTimestamp: expireTimestamp), nonce: nonce, key: key)
        else { throw .authenticationFailed("private connect token") }
        return try ConnectTokenPrivate(plaintext: plaintext)
    }
}
