import TickwireNetcode
import TickwireSim

/// Mints connect tokens for players whose identity the game's backend has verified: the one
/// netcode.io 1.02 token both transports take (the UDP transport whole, a WebSocket hello its
/// `ConnectToken.helloToken`), holding the user id, the room it reserves, the
/// display name and the game's claims (``ConnectTokenUserData``), sealed with the fleet's key.
///
/// ```swift
/// let issuer = ConnectTokenIssuer(key: fleetKey, protocolID: 0x5449_434B_5749_5245)
/// let token = try issuer.issue(
///     userID: 42, room: "red", displayName: "Ada", serverAddresses: [udpAddress], lifetimeSeconds: 30)
/// ```
public struct ConnectTokenIssuer: Sendable {
    private let key: NetcodeKey
    /// The game's netcode.io protocol id.
    public let protocolID: UInt64
    /// The clock tokens are dated by.
    public let clock: TokenClock
    /// Seconds without packets before a UDP connection times out, written into each token
    /// (netcode.io's timeout; the WebSocket transport has its own). Default 10.
    public var timeoutSeconds: Int32 = 10

    /// An issuer holding the fleet's key.
    ///
    /// - Parameters:
    ///   - key: The key shared with every server's verifier.
    ///   - protocolID: The game's netcode.io protocol id.
    ///   - clock: The clock tokens are dated by; the wall clock by default.
    public init(key: NetcodeKey, protocolID: UInt64, clock: TokenClock = .system) {
        self.key = key
        self.protocolID = protocolID
        self.clock = clock
    }

    /// Mints a token.
    ///
    /// - Parameters:
    ///   - userID: The player's user id (the token's client id).
    ///   - room: The room the token reserves: a host admits it only to that room.
    ///   - displayName: The name the player is shown under (at most 64 UTF-8 bytes).
    ///   - claims: The game's own claims (what fits of the 256 bytes of user data).
    ///   - serverAddresses: The UDP servers the token names (1 to 32; a WebSocket host does not read them).
    ///   - lifetimeSeconds: How long from now the token may join (at least 1).
    ///   - nonce: The private part's 24-byte nonce; a fresh random one when `nil` (only tests and vectors give one).
    /// - Returns: The token.
    /// - Throws: ``ConnectTokenIssueError`` when the identity does not fit the user data, the
    ///   addresses are not 1 to 32, the lifetime is 0 or overflows, or the nonce is not 24 bytes.
    public func issue(
        userID: UInt64, room: String, displayName: String, claims: [UInt8] = [], serverAddresses: [NetcodeAddress],
        lifetimeSeconds: UInt64, nonce: [UInt8]? = nil
    ) throws(ConnectTokenIssueError) -> ConnectToken {
        let now = clock.now
        let (expiry, overflow) = now.addingReportingOverflow(lifetimeSeconds)
        guard lifetimeSeconds > 0, !overflow else { throw ConnectTokenIssueError(.lifetime(lifetimeSeconds)) }
        let userData: [UInt8]
        do {
            userData = try ConnectTokenUserData(room: room, displayName: displayName, claims: claims).encoded()
        } catch {
            throw ConnectTokenIssueError(.userData(error))
        }
        do {
            let privatePart = try ConnectTokenPrivate(
                clientID: userID, timeoutSeconds: timeoutSeconds, serverAddresses: serverAddresses,
                clientToServerKey: NetcodeKey.random(), serverToClientKey: NetcodeKey.random(), userData: userData)
            return try ConnectToken.generate(
                privatePart, protocolID: protocolID, createTimestamp: now, expireTimestamp: expiry, privateKey: key, nonce: nonce)
        } catch {
            throw ConnectTokenIssueError(.netcode(error))
        }
    }
}

extension ConnectTokenIssuer {
    /// Mints the token for a seat a matchmaker reserved: bound to the reservation's room, and
    /// valid for as long as the seat waits for the player's hello (at least 1 s).
    ///
    /// - Parameters:
    ///   - reservation: The seat (``SeatReservation``).
    ///   - userID: The player's user id.
    ///   - displayName: The name the player is shown under.
    ///   - claims: The game's own claims.
    ///   - serverAddresses: The UDP servers the token names (1 to 32).
    /// - Returns: The token.
    /// - Throws: ``ConnectTokenIssueError``, as ``issue(userID:room:displayName:claims:serverAddresses:lifetimeSeconds:nonce:)``.
    public func issue(
        for reservation: SeatReservation, userID: UInt64, displayName: String, claims: [UInt8] = [],
        serverAddresses: [NetcodeAddress]
    ) throws(ConnectTokenIssueError) -> ConnectToken {
        let seconds = max(1, UInt64(clamping: reservation.validFor.components.seconds))
        return try issue(
            userID: userID, room: reservation.room, displayName: displayName, claims: claims, serverAddresses: serverAddresses,
            lifetimeSeconds: seconds)
    }
}

/// Why ``ConnectTokenIssuer/issue(userID:room:displayName:claims:serverAddresses:lifetimeSeconds:nonce:)``
/// could not mint a token.
public struct ConnectTokenIssueError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case lifetime(UInt64)
        case userData(ConnectTokenUserDataError)
        case netcode(NetcodeError)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// What was wrong, with the offending value.
    public var description: String {
        switch kind {
        case .lifetime(let seconds): "a token's lifetime must be at least 1 s and end before 2^64 s; it was \(seconds) s"
        case .userData(let error): "the identity does not fit a token's user data: \(error)"
        case .netcode(let error): "netcode.io refused the token: \(error)"
        }
    }
}
