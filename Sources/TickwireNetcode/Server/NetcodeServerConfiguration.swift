/// What a ``NetcodeServer`` needs to know: who it is and how many clients it holds.
public struct NetcodeServerConfiguration: Sendable {
    /// The application's protocol id.
    public var protocolID: UInt64
    /// The private key shared with the web backend that mints connect tokens.
    public var privateKey: NetcodeKey
    /// The server's public addresses; a connect token must name one of them.
    public var publicAddresses: [NetcodeAddress]
    /// The number of client slots, 1 to ``Netcode/maxClients``.
    public var maxClients: Int
    /// The key of challenge tokens; a fresh random key when nil (tests fix it for determinism).
    public var challengeKey: NetcodeKey?

    /// A server configuration.
    ///
    /// - Parameters:
    ///   - protocolID: The protocol id.
    ///   - privateKey: The servers' private key.
    ///   - publicAddresses: The addresses connect tokens name for this server.
    ///   - maxClients: The number of slots (1 to 256).
    ///   - challengeKey: A fixed challenge key, or nil for a random one.
    public init(
        protocolID: UInt64, privateKey: NetcodeKey, publicAddresses: [NetcodeAddress], maxClients: Int, challengeKey: NetcodeKey? = nil
    ) {
        self.protocolID = protocolID
        self.privateKey = privateKey
        self.publicAddresses = publicAddresses
        self.maxClients = maxClients
        self.challengeKey = challengeKey
    }
}
