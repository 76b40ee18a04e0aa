/// A netcode.io packet type: the low 4 bits of a packet's prefix byte.
public struct NetcodePacketType: Hashable, Sendable, CustomStringConvertible {
    /// The wire value (0...6).
    public let rawValue: UInt8

    /// The type with this wire value, or nil outside 0...6.
    ///
    /// - Parameter rawValue: The low 4 bits of a prefix byte.
    public init?(rawValue: UInt8) {
        guard rawValue < Self.count else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// The number of packet types netcode.io 1.02 defines.
    static let count: UInt8 = 7

    /// Connection request (0), the one packet sent in the clear.
    public static let connectionRequest = NetcodePacketType(0)
    /// Connection denied (1): the server is full.
    public static let connectionDenied = NetcodePacketType(1)
    /// Connection challenge (2): the server's challenge token.
    public static let connectionChallenge = NetcodePacketType(2)
    /// Connection response (3): the client returns the challenge token.
    public static let connectionResponse = NetcodePacketType(3)
    /// Keep-alive (4): client index and max clients.
    public static let keepAlive = NetcodePacketType(4)
    /// Payload (5): 1 to 1200 bytes of application data.
    public static let payload = NetcodePacketType(5)
    /// Disconnect (6).
    public static let disconnect = NetcodePacketType(6)

    /// The name of the type, as the standard writes it.
    public var description: String {
        switch rawValue {
        case 0: "connection request"
        case 1: "connection denied"
        case 2: "connection challenge"
        case 3: "connection response"
        case 4: "keep-alive"
        case 5: "payload"
        default: "disconnect"
        }
    }

    /// Whether packets of this type go through replay protection (keep-alive, payload, disconnect).
    var isReplayProtected: Bool { rawValue >= Self.keepAlive.rawValue }
}
