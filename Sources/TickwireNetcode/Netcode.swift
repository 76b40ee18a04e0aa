/// The constants and limits of netcode.io 1.02, named as its standard (`STANDARD.md`) states them.
///
/// Every size here is in bytes. Integers on the wire are little-endian.
public enum Netcode {
    /// The version info every token and packet carries: `"NETCODE 1.02"` in ASCII with its null terminator (13 bytes).
    public static let versionInfo: [UInt8] = Array("NETCODE 1.02".utf8) + [0]
    /// The size of ``versionInfo``.
    public static let versionInfoBytes = 13
    /// The size of every key: the servers' private key, the client-to-server and server-to-client keys, the challenge key.
    public static let keyBytes = 32
    /// The size of an AEAD authentication tag (the standard's "HMAC").
    public static let macBytes = 16
    /// The size of the user data a connect token and a challenge token carry.
    public static let userDataBytes = 256
    /// The size of a serialized connect token (public and private parts, zero padded).
    public static let connectTokenBytes = 2048
    /// The size of the encrypted private part of a connect token, its tag included.
    public static let connectTokenPrivateBytes = 1024
    /// The size of a connect token's nonce (XChaCha20-Poly1305-IETF).
    public static let connectTokenNonceBytes = 24
    /// The size of an encrypted challenge token, its tag included.
    public static let challengeTokenBytes = 300
    /// The most server addresses one connect token may hold.
    public static let maxServersPerConnect = 32
    /// The largest payload one payload packet carries (the standard's `[1, 1200]`).
    public static let maxPayloadBytes = 1200
    /// The largest datagram netcode.io sends or reads (the reference's `NETCODE_MAX_PACKET_BYTES`):
    /// a payload packet is at most 1 + 8 + 1200 + 16 = 1225 bytes, a connection request 1078.
    public static let maxDatagramBytes = 1300
    /// The size of a connection request packet.
    public static let connectionRequestBytes = 1 + 13 + 8 + 8 + 24 + 1024
    /// The smallest encrypted packet: a prefix byte, one sequence byte and a tag.
    public static let minEncryptedPacketBytes = 1 + 1 + 16
    /// The bytes an encrypted packet adds around its payload at most: a prefix byte, eight sequence bytes and a tag.
    public static let maxPacketOverheadBytes = 1 + 8 + 16
    /// The entries of the replay protection window (the standard's conservative 256 per client).
    public static let replayWindowSize = 256
    /// The rate at which clients and servers send connection requests, responses and keep-alives, per second.
    public static let packetSendRate = 10.0
    /// How many redundant disconnect packets a client or a server sends when it disconnects.
    public static let disconnectPacketCount = 10
    /// The most client slots one ``NetcodeServer`` holds (the reference implementation's limit).
    public static let maxClients = 256
    /// The first sequence number of a server's global packets (challenge, denied): the top half of
    /// the sequence space, so their nonces never meet a slot's, which start at zero under the same key.
    public static let serverGlobalSequenceStart: UInt64 = 1 << 63

    /// Whole Unix seconds from a `now` in seconds: 0 for negative or NaN, `UInt64.max` beyond it (never traps).
    static func unixSeconds(_ now: Double) -> UInt64 {
        guard now > 0 else { return 0 }
        guard now < 18_446_744_073_709_551_615.0 else { return .max }
        return UInt64(now)
    }
}
