/// A connection whose transport sends its client to another process of a fleet by itself: a
/// redirect (``Message/Reject/Reason/redirect``) or a move (``Message/Disconnect/Reason/moved``)
/// then names the other process on this connection's transport rather than its WebSocket URL.
///
/// The UDP transport's connections are handover connections: a netcode.io client needs a
/// connect token for the server it connects to, so the process that redirects mints one for the
/// other process's UDP address (the fleet shares one private key) and sends it to the client on
/// the reliable channel, before the reject or disconnect (PROTOCOL.md 1A.11). A ``Host`` with a
/// ``RoomDirectory`` asks ``handOver(to:)`` whenever the directory knows the other process's
/// address on the transport (``RoomDirectory/udpURL(ofProcessAt:)``), and falls back to the
/// WebSocket URL when the connection cannot hand over.
public protocol HandoverConnection: TransportConnection {
    /// Gets the client ready to connect to another process at `address` (sends what it needs
    /// there first, ahead of the frames sent after this call) and returns the URL the redirect or
    /// moved message should carry.
    ///
    /// - Parameter address: The other process's address on this transport, as its directory
    ///   registration gives it (`udp://HOST:PORT`).
    /// - Returns: The URL for the message, or `nil` when the client cannot be sent there this way
    ///   (the address does not parse, a token cannot be made): the host then sends the WebSocket URL.
    func handOver(to address: String) -> String?
}
