/// A datagram for the caller to send: the bytes and the address they go to.
public struct NetcodeDatagram: Hashable, Sendable {
    /// The datagram's bytes.
    public var bytes: [UInt8]
    /// The peer it goes to.
    public var address: NetcodeAddress

    /// A datagram.
    ///
    /// - Parameters:
    ///   - bytes: The bytes.
    ///   - address: The destination.
    public init(bytes: [UInt8], address: NetcodeAddress) {
        self.bytes = bytes
        self.address = address
    }
}
