extension Message {
    /// Either side announces it is leaving; the connection closes after it.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.10): reason code (u16), text (text).
    public struct Disconnect: Hashable, Sendable {
        /// Why the sender is leaving: an extensible code. 1...32767 are Tickwire's,
        /// 32768...65535 the application's.
        public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The code on the wire.
            public let rawValue: UInt16

            /// Creates a reason from its code.
            ///
            /// - Parameter rawValue: The code; any value is accepted.
            public init(rawValue: UInt16) { self.rawValue = rawValue }

            /// No reason given.
            public static let unspecified = Reason(rawValue: 0)
            /// The player chose to leave.
            public static let leaving = Reason(rawValue: 1)
            /// The server is shutting down.
            public static let serverShuttingDown = Reason(rawValue: 2)
            /// The server removed the client (an application decision), for good: its player is
            /// gone, its resume token resumes nothing, and a client does not reconnect
            /// (PROTOCOL.md 5.10).
            public static let kicked = Reason(rawValue: 3)
            /// Nothing arrived from the peer for too long.
            public static let timedOut = Reason(rawValue: 4)
            /// The peer sent a frame that could not be decoded.
            public static let protocolError = Reason(rawValue: 5)
            /// The client could not keep up: its outbound queue stayed over budget.
            public static let tooSlow = Reason(rawValue: 6)
            /// Another connection resumed this session with its token.
            public static let replaced = Reason(rawValue: 7)
            /// The server process is draining (or lost the room): reconnect at once, without
            /// backoff, to the URL in the disconnect's text, or to the client's entry URLs when
            /// the text is empty (PROTOCOL.md 5.10). The player is kept for the client to resume.
            public static let moved = Reason(rawValue: 8)
            /// The server removed the client as ``kicked`` does (its player is gone, its resume
            /// token resumes nothing), but lets it come back: a client reconnects as after a lost
            /// connection, with backoff, and joins as a new player (PROTOCOL.md 5.10). A client
            /// that does not know the reason reconnects too.
            public static let kickedMayRejoin = Reason(rawValue: 9)

            /// The reason's name, or its code when it has none.
            public var description: String {
                switch self {
                case .unspecified: "unspecified"
                case .leaving: "leaving"
                case .serverShuttingDown: "server shutting down"
                case .kicked: "kicked"
                case .timedOut: "timed out"
                case .protocolError: "protocol error"
                case .tooSlow: "too slow"
                case .replaced: "replaced"
                case .moved: "moved"
                case .kickedMayRejoin: "kicked, may rejoin"
                default: "reason \(rawValue)"
                }
            }
        }

        /// Why the sender is leaving.
        public var reason: Reason
        /// Words for a person (UTF-8, at most ``FrameLimits/maximumTextBytes``).
        public var text: String

        /// Creates a disconnect.
        ///
        /// - Parameters:
        ///   - reason: Why the sender is leaving.
        ///   - text: Words for a person.
        public init(reason: Reason, text: String = "") {
            self.reason = reason
            self.text = text
        }

        func encode(into writer: inout ByteWriter, limits: FrameLimits) throws(FrameError) {
            writer.writeUInt16(reason.rawValue)
            try writer.writeString(text, field: "disconnect text", limit: limits.maximumTextBytes)
        }

        init(from reader: inout ByteReader, limits: FrameLimits) throws(FrameError) {
            reason = Reason(rawValue: try reader.readUInt16())
            text = try reader.readString(field: "disconnect text", limit: limits.maximumTextBytes)
        }
    }
}
