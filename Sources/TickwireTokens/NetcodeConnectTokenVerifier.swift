import TickwireCodec
import TickwireNetcode
import TickwireSim

/// Checks the connect tokens hellos carry with the fleet's key, on libsodium (netcode.io 1.02's
/// XChaCha20-Poly1305 private part): the ``ConnectTokenVerifier`` a host is given in
/// ``HostConfiguration/tokenVerifier``.
///
/// It refuses a token whose expiry has come (``Message/Reject/Reason/tokenExpired``), then one
/// that does not open with the key and protocol id or whose user data is not Tickwire's layout
/// (``Message/Reject/Reason/tokenInvalid``). The host checks the room and single use.
///
/// ```swift
/// var configuration = HostConfiguration()
/// configuration.requiresTokens = true
/// configuration.tokenVerifier = NetcodeConnectTokenVerifier(key: fleetKey, protocolID: 0x5449_434B_5749_5245)
/// ```
public struct NetcodeConnectTokenVerifier: ConnectTokenVerifier {
    private let key: NetcodeKey
    /// The protocol id tokens must be minted for (part of the AEAD's associated data).
    public let protocolID: UInt64
    /// The clock expiry is judged by.
    public let clock: TokenClock

    /// A verifier holding the fleet's key.
    ///
    /// - Parameters:
    ///   - key: The key shared with the issuer (``ConnectTokenIssuer``).
    ///   - protocolID: The game's netcode.io protocol id.
    ///   - clock: The clock expiry is judged by; the wall clock by default.
    public init(key: NetcodeKey, protocolID: UInt64, clock: TokenClock = .system) {
        self.key = key
        self.protocolID = protocolID
        self.clock = clock
    }

    /// Checks the expiry, opens the private part and reads its user data.
    ///
    /// - Parameter token: The token a hello carries.
    /// - Returns: The identity, the room the token reserves, its expiry and tag.
    /// - Throws: ``ConnectTokenRefusal`` with ``Message/Reject/Reason/tokenExpired`` or
    ///   ``Message/Reject/Reason/tokenInvalid``.
    public func verify(_ token: Message.Hello.ConnectToken) throws(ConnectTokenRefusal) -> VerifiedConnectToken {
        let now = clock.now
        guard token.expireTimestamp > now else {
            throw ConnectTokenRefusal(
                .tokenExpired, "the connect token expired at \(token.expireTimestamp) (Unix seconds); it is now \(now)")
        }
        let privatePart: ConnectTokenPrivate
        do {
            privatePart = try ConnectTokenPrivate.decrypt(
                token.encryptedPrivateData, protocolID: protocolID, expireTimestamp: token.expireTimestamp, nonce: token.nonce, key: key)
        } catch {
            throw ConnectTokenRefusal(
                .tokenInvalid, "the connect token does not open with this server's key and protocol id (\(error.code))")
        }
        let details: ConnectTokenUserData
        do {
            details = try ConnectTokenUserData(decoding: privatePart.userData)
        } catch {
            throw ConnectTokenRefusal(.tokenInvalid, "the connect token's user data is not Tickwire's layout: \(error)")
        }
        return VerifiedConnectToken(
            identity: PlayerIdentity(userID: privatePart.clientID, userData: privatePart.userData), room: details.room,
            expireTimestamp: token.expireTimestamp, verifiedAt: now, tag: token.tag)
    }
}
