/// What happened on a ``NetcodeServer`` that its application must hear of.
public enum NetcodeServerEvent: Hashable, Sendable {
    /// A client connected into slot `clientIndex`, with the user data of its connect token.
    case connected(clientIndex: Int, clientID: UInt64, address: NetcodeAddress, userData: [UInt8])
    /// The client of slot `clientIndex` left; the slot is free again.
    case disconnected(clientIndex: Int, clientID: UInt64, reason: DisconnectReason)
    /// The client of slot `clientIndex` sent a payload.
    case payload(clientIndex: Int, bytes: [UInt8], sequence: UInt64)

    /// Why a client left.
    public struct DisconnectReason: Hashable, Sendable, CustomStringConvertible {
        /// The name of the reason.
        public let description: String
        private init(_ description: String) { self.description = description }

        /// No packet came within the token's timeout.
        public static let timedOut = DisconnectReason("timed out")
        /// The client sent a disconnect packet.
        public static let clientDisconnected = DisconnectReason("client disconnected")
        /// The server application disconnected it.
        public static let serverDisconnected = DisconnectReason("server disconnected")
    }
}
