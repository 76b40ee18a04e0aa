/// A 32-byte symmetric key: the servers' private key shared with the web backend, a connect
/// token's client-to-server and server-to-client keys, or a server's challenge key.
public struct NetcodeKey: Hashable, Sendable {
    /// The 32 key bytes.
    public let bytes: [UInt8]

    /// A key from its bytes.
    ///
    /// - Parameter bytes: Exactly ``Netcode/keyBytes`` bytes.
    /// - Throws: ``NetcodeError`` with code `wrongSize` when there are not 32 bytes.
    public init(bytes: [UInt8]) throws(NetcodeError) {
        guard bytes.count == Netcode.keyBytes else { throw .wrongSize("key", size: bytes.count, expected: "\(Netcode.keyBytes)") }
        self.bytes = bytes
    }

    /// A fresh random key from libsodium's `randombytes_buf`.
    ///
    /// - Returns: 32 random bytes as a key.
    public static func random() -> NetcodeKey {
        NetcodeKey(unchecked: Sodium.randomBytes(Netcode.keyBytes))
    }

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }
}
