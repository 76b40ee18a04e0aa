/// The state of a ``NetcodeClient``, with the standard's numbers: negative values are errors.
public struct NetcodeClientState: Hashable, Sendable, CustomStringConvertible {
    /// The standard's number of the state (-6...3).
    public let rawValue: Int

    /// The state with this number, or nil outside -6...3.
    ///
    /// - Parameter rawValue: The standard's number.
    public init?(rawValue: Int) {
        guard (-6...3).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: Int) { self.rawValue = rawValue }

    /// The connect token expired before a connection was made (-6).
    public static let connectTokenExpired = NetcodeClientState(-6)
    /// The connect token could not be read or is inconsistent (-5).
    public static let invalidConnectToken = NetcodeClientState(-5)
    /// The connected server sent nothing within the timeout (-4).
    public static let connectionTimedOut = NetcodeClientState(-4)
    /// No keep-alive or denial answered the challenge responses within the timeout (-3).
    public static let connectionResponseTimedOut = NetcodeClientState(-3)
    /// No challenge or denial answered the connection requests within the timeout (-2).
    public static let connectionRequestTimedOut = NetcodeClientState(-2)
    /// The server denied the connection (full) (-1).
    public static let connectionDenied = NetcodeClientState(-1)
    /// Not connected (0), the initial state.
    public static let disconnected = NetcodeClientState(0)
    /// Sending connection requests (1).
    public static let sendingConnectionRequest = NetcodeClientState(1)
    /// Sending challenge responses (2).
    public static let sendingConnectionResponse = NetcodeClientState(2)
    /// Connected (3).
    public static let connected = NetcodeClientState(3)

    /// Whether this is an error state (negative).
    public var isError: Bool { rawValue < 0 }

    /// Whether the client is on its way to a connection (sending requests or responses).
    public var isConnecting: Bool { rawValue == 1 || rawValue == 2 }

    /// The standard's name of the state.
    public var description: String {
        switch rawValue {
        case -6: "connect token expired"
        case -5: "invalid connect token"
        case -4: "connection timed out"
        case -3: "connection response timed out"
        case -2: "connection request timed out"
        case -1: "connection denied"
        case 0: "disconnected"
        case 1: "sending connection request"
        case 2: "sending connection response"
        default: "connected"
        }
    }
}
