import TickwireIO
import TickwireNetcode

/// Where a ``UDPTransportServer`` listens, the netcode.io identity its connect tokens name, and
/// its limits.
public struct UDPTransportServerConfiguration: Sendable {
    /// The address to bind; port 0 lets the kernel choose (read it from
    /// ``UDPTransportServer/address``).
    public var address: SocketAddress
    /// The addresses connect tokens name for this server (netcode.io refuses a token that names
    /// none of them). `nil`: the bound address, or for a wildcard (`0.0.0.0`, `::`) the loopback
    /// address with the bound port, which reaches this machine only: name the public addresses
    /// for clients elsewhere.
    public var publicAddresses: [NetcodeAddress]?
    /// The application's netcode.io protocol id; tokens minted for another are refused.
    public var protocolID: UInt64
    /// The private key shared with whatever mints the connect tokens (a matchmaker, the fleet).
    public var privateKey: NetcodeKey
    /// The most clients connected at once, 1 to `Netcode.maxClients` (256); one more is
    /// denied by netcode.io. Default 256.
    public var maxClients = Netcode.maxClients
    /// The connection limits (frames queued, the packet layer's buffers, the close linger).
    public var limits = UDPTransportLimits()
    /// Seconds a connect token this server mints for a handover (a redirect or a move to
    /// another process of the fleet, ``UDPServerTransportConnection/handOver(to:)``) may be used
    /// to connect. Default 30.
    public var handoverTokenLifetime: UInt64 = 30
    /// The netcode.io timeout, in seconds, such a token gives the new connection. Default 10.
    public var handoverTokenTimeoutSeconds: Int32 = 10

    /// A configuration.
    ///
    /// - Parameters:
    ///   - address: Where to bind, such as `127.0.0.1:0`.
    ///   - publicAddresses: The addresses tokens name; `nil` for the bound one.
    ///   - protocolID: The netcode.io protocol id.
    ///   - privateKey: The key connect tokens are sealed with.
    public init(
        address: SocketAddress, publicAddresses: [NetcodeAddress]? = nil,
        protocolID: UInt64, privateKey: NetcodeKey
    ) {
        self.address = address
        self.publicAddresses = publicAddresses
        self.protocolID = protocolID
        self.privateKey = privateKey
    }
}
