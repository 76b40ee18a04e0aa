import TickwireNetcode

extension UDPTransportServer {
    /// Why netcode.io ignored a datagram, grouped for an operator: the `reason` label of
    /// `tickwire_udp_datagrams_ignored_total`.
    ///
    /// An extensible value: a struct with static members, so that a reason added later (a
    /// connection-request flood check, say) does not break a `switch` elsewhere.
    public struct IgnoreReason: Hashable, Sendable, CustomStringConvertible {
        /// The label value, in snake case.
        public let rawValue: String

        /// A reason from its label value.
        ///
        /// - Parameter rawValue: The label value.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Shorter than any netcode.io packet (`Netcode.minEncryptedPacketBytes`): dropped unread.
        public static let short = IgnoreReason(rawValue: "short")
        /// Longer than netcode.io's 1300-byte maximum datagram: dropped unread.
        public static let oversized = IgnoreReason(rawValue: "oversized")
        /// A connection request past its host's budget
        /// (``UDPTransportLimits/connectionRequestsPerAddressPerSecond``): dropped unread.
        public static let requestRate = IgnoreReason(rawValue: "request_rate")
        /// The packet's MAC did not authenticate: a forged or corrupted packet, or a wrong key.
        public static let badMAC = IgnoreReason(rawValue: "bad_mac")
        /// A sequence number the replay window had already seen or left behind.
        public static let replay = IgnoreReason(rawValue: "replay")
        /// An encrypted packet from an address with neither a connected client nor a pending
        /// handshake (no encryption mapping).
        public static let unknownAddress = IgnoreReason(rawValue: "unknown_address")
        /// A connection request or response the handshake refused: an expired, reused or
        /// misaddressed token, another protocol id or version, an address or client already
        /// connected.
        public static let refusedRequest = IgnoreReason(rawValue: "refused_request")
        /// Anything else that does not parse as netcode.io: an unknown packet type, a truncated
        /// packet, a type the server does not accept.
        public static let garbage = IgnoreReason(rawValue: "garbage")

        /// The label value.
        public var description: String { rawValue }

        /// The reason a netcode.io error code stands for; `wrongSize` is ``garbage`` here: datagrams
        /// no packet can be (``short``, ``oversized``) are dropped before netcode.io reads them, so
        /// its `wrongSize` means a size wrong for the packet's type.
        ///
        /// - Parameter code: The check that refused the packet.
        /// - Returns: Its reason.
        static func reason(for code: NetcodeError.Code) -> IgnoreReason {
            switch code {
            case .authenticationFailed: .badMAC
            case .replayed: .replay
            case .noEncryptionMapping, .unexpectedSender, .invalidState: .unknownAddress
            case .tokenExpired, .tokenUsedElsewhere, .serverAddressNotInToken, .alreadyConnected, .protocolIDMismatch,
                .versionMismatch, .invalidTimestamps, .invalidServerAddressCount:
                .refusedRequest
            default: .garbage
            }
        }

        /// netcode.io's ignored packets by reason.
        ///
        /// - Parameter ignored: netcode.io's counts by error code.
        /// - Returns: The counts by reason; they add up to the counts given.
        static func classify(_ ignored: [NetcodeError.Code: Int]) -> [IgnoreReason: Int] {
            var byReason: [IgnoreReason: Int] = [:]
            for (code, count) in ignored { byReason[reason(for: code), default: 0] += count }
            return byReason
        }
    }
}
