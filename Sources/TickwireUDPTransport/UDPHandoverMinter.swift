import TickwireNetcode

/// What a ``UDPTransportServer`` needs to mint the connect tokens of handovers (PROTOCOL.md
/// 1A.11): the fleet's netcode.io protocol id and private key, and how long a token lives.
struct UDPHandoverMinter: Sendable {
    let protocolID: UInt64
    let privateKey: NetcodeKey
    /// Seconds the token may be used to connect.
    let lifetime: UInt64
    /// The netcode.io timeout the token gives the new connection.
    let timeoutSeconds: Int32

    /// A token for `address`, for the client `clientID` with `userData` (the identity its first
    /// token gave it), with fresh keys, created at `now` (Unix seconds).
    ///
    /// - Throws: ``NetcodeError`` when netcode.io cannot make it.
    func token(for address: NetcodeAddress, clientID: UInt64, userData: [UInt8], now: UInt64) throws(NetcodeError) -> ConnectToken {
        let privatePart = try ConnectTokenPrivate(
            clientID: clientID, timeoutSeconds: timeoutSeconds, serverAddresses: [address], clientToServerKey: NetcodeKey.random(),
            serverToClientKey: NetcodeKey.random(), userData: userData)
        return try ConnectToken.generate(
            privatePart, protocolID: protocolID, createTimestamp: now, expireTimestamp: now + lifetime, privateKey: privateKey)
    }
}
