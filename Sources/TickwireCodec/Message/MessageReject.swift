extension Message {
    /// The server's refusal of a hello, after which it closes the connection.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.5): reason code (u16), text (text).
    public struct Reject: Hashable, Sendable {
        /// Why a hello was refused: an extensible code. 1...32767 are Tickwire's, 32768...65535
        /// the application's (for example "banned", or a failed check of the hello payload).
        public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The code on the wire.
            public let rawValue: UInt16

            /// Creates a reason from its code.
            ///
            /// - Parameter rawValue: The code; any value is accepted.
            public init(rawValue: UInt16) { self.rawValue = rawValue }

            /// No reason given.
            public static let unspecified = Reason(rawValue: 0)
            /// The hello's protocol version is not one the server speaks.
            public static let versionMismatch = Reason(rawValue: 1)
            /// The hello's schema fingerprint differs from the server's game schema.
            public static let schemaMismatch = Reason(rawValue: 2)
            /// The room has no free place.
            public static let roomFull = Reason(rawValue: 3)
            /// The room named in the hello does not exist.
            public static let unknownRoom = Reason(rawValue: 4)
            /// The resume token is unknown or expired.
            public static let badResumeToken = Reason(rawValue: 5)
            /// The server is shutting down and accepts no one.
            public static let serverShuttingDown = Reason(rawValue: 6)
            /// The first frame was not a well-formed hello.
            public static let invalidHello = Reason(rawValue: 7)
            /// Another process of the fleet holds the room: the reject's text is that process's
            /// URL (an absolute `ws://` or `wss://` URL, at most ``FrameLimits/maximumTextBytes``),
            /// and the client sends the same hello there (PROTOCOL.md 5.5). A client that does not
            /// know the reason still reads it as a reject, with the URL as its words.
            public static let redirect = Reason(rawValue: 8)
            /// The server admits only players with a connect token, and the hello carried none
            /// (and resumed no session). PROTOCOL.md 5.3.1.
            public static let tokenRequired = Reason(rawValue: 9)
            /// The hello's connect token does not open with the server's key (forged, altered, or
            /// minted for another protocol id), or its user data is not Tickwire's layout.
            public static let tokenInvalid = Reason(rawValue: 10)
            /// The hello's connect token has expired.
            public static let tokenExpired = Reason(rawValue: 11)
            /// The hello's connect token was already used to join: each token joins once, and a
            /// session comes back with its resume token.
            public static let tokenAlreadyUsed = Reason(rawValue: 12)
            /// The hello's connect token reserves another room than the one the hello names.
            public static let tokenWrongRoom = Reason(rawValue: 13)
            /// The server remembers as many used tokens as it can hold, none expired yet: it admits
            /// no new token until one expires (a client may try again later).
            public static let tokensExhausted = Reason(rawValue: 14)
            /// 32768, the first of the application's reasons (32768...65535): the game refused the
            /// player. A game names its own reasons from here up (``isApplicationReason``).
            public static let refusedByGame = Reason(rawValue: 0x8000)

            /// Whether the code is the application's (32768...65535), not Tickwire's.
            public var isApplicationReason: Bool { rawValue >= 0x8000 }

            /// The reason's name, or its code when it has none.
            public var description: String {
                switch self {
                case .unspecified: "unspecified"
                case .versionMismatch: "version mismatch"
                case .schemaMismatch: "schema mismatch"
                case .roomFull: "room full"
                case .unknownRoom: "unknown room"
                case .badResumeToken: "bad resume token"
                case .serverShuttingDown: "server shutting down"
                case .invalidHello: "invalid hello"
                case .redirect: "redirect"
                case .tokenRequired: "token required"
                case .tokenInvalid: "token invalid"
                case .tokenExpired: "token expired"
                case .tokenAlreadyUsed: "token already used"
                case .tokenWrongRoom: "token for another room"
                case .tokensExhausted: "tokens exhausted"
                default: "reason \(rawValue)"
                }
            }
        }

        /// Why the hello was refused.
        public var reason: Reason
        /// Words for a person (UTF-8, at most ``FrameLimits/maximumTextBytes``).
        public var text: String

        /// Creates a reject.
        ///
        /// - Parameters:
        ///   - reason: Why the hello was refused.
        ///   - text: Words for a person.
        public init(reason: Reason, text: String = "") {
            self.reason = reason
            self.text = text
        }

        func encode(into writer: inout ByteWriter, limits: FrameLimits) throws(FrameError) {
            writer.writeUInt16(reason.rawValue)
            try writer.writeString(text, field: "reject text", limit: limits.maximumTextBytes)
        }

        init(from reader: inout ByteReader, limits: FrameLimits) throws(FrameError) {
            reason = Reason(rawValue: try reader.readUInt16())
            text = try reader.readString(field: "reject text", limit: limits.maximumTextBytes)
        }
    }
}
