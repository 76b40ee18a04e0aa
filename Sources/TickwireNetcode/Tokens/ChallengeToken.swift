/// A challenge token: what the server sends a would-be client to prove it owns its source address.
///
/// 300 bytes: client id and user data, zero padded, encrypted over the first 284 bytes with
/// ChaCha20-Poly1305-IETF under the server's random challenge key, without associated data; the
/// nonce is four zero bytes then the challenge sequence as a little-endian `uint64`.
public struct ChallengeToken: Hashable, Sendable {
    /// The client's id, from its connect token.
    public var clientID: UInt64
    /// The 256 bytes of user data from the connect token.
    public var userData: [UInt8]

    /// A challenge token.
    ///
    /// - Parameters:
    ///   - clientID: The client's id.
    ///   - userData: Exactly 256 bytes.
    /// - Throws: ``NetcodeError`` with code `wrongSize` when the user data is not 256 bytes.
    public init(clientID: UInt64, userData: [UInt8]) throws(NetcodeError) {
        guard userData.count == Netcode.userDataBytes else {
            throw .wrongSize("user data", size: userData.count, expected: "\(Netcode.userDataBytes)")
        }
        self.clientID = clientID
        self.userData = userData
    }

    /// Encrypts the token.
    ///
    /// - Parameters:
    ///   - sequence: The challenge token sequence (the nonce).
    ///   - key: The server's challenge key.
    /// - Returns: The 300 bytes of encrypted challenge token data.
    public func encrypted(sequence: UInt64, key: NetcodeKey) -> [UInt8] {
        var writer = ByteWriter(capacity: Netcode.challengeTokenBytes)
        writer.write(clientID)
        writer.write(bytes: userData)
        writer.pad(to: Netcode.challengeTokenBytes - Netcode.macBytes)
        return Sodium.sealChaCha(writer.bytes, additionalData: [], nonce: Sodium.sequenceNonce(sequence), key: key)
    }

    /// Decrypts and reads encrypted challenge token data.
    ///
    /// - Parameters:
    ///   - encrypted: The 300 bytes of encrypted challenge token data.
    ///   - sequence: The challenge token sequence that came with it.
    ///   - key: The server's challenge key.
    /// - Returns: The challenge token.
    /// - Throws: ``NetcodeError``: `wrongSize` or `authenticationFailed`.
    public static func decrypt(_ encrypted: [UInt8], sequence: UInt64, key: NetcodeKey) throws(NetcodeError) -> ChallengeToken {
        guard encrypted.count == Netcode.challengeTokenBytes else {
            throw .wrongSize("encrypted challenge token", size: encrypted.count, expected: "\(Netcode.challengeTokenBytes)")
        }
        guard let plaintext = Sodium.openChaCha(encrypted[...], additionalData: [], nonce: Sodium.sequenceNonce(sequence), key: key) else {
            throw .authenticationFailed("challenge token")
        }
        var reader = ByteReader(plaintext, what: "challenge token")
        let clientID = try reader.readUInt64()
        return try ChallengeToken(clientID: clientID, userData: try reader.readBytes(Netcode.userDataBytes))
    }
}
