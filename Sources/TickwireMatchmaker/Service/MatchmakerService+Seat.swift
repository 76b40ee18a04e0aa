import TickwireFoundation
import TickwireNetcode
import TickwireSim
import TickwireTokens
import TickwireUDPTransport
import TickwireWebSocket

extension MatchmakerService {
    /// `POST /matchmake/{action}/{target}`: authenticates the player, reserves its seat, mints
    /// its token and answers `Protocol/MATCHMAKER.md` section 2's object.
    func seat(
        _ kind: MatchmakerRoute.SeatKind, target: String, options: [String: JSONValue], head: HTTPRequestHead
    ) async throws(MatchmakerRefusal) -> HTTPResponse {
        let action: MatchAction =
            switch kind {
            case .joinOrCreate: .joinOrCreate(mode: target)
            case .join: .join(mode: target)
            case .create: .create(mode: target, isPrivate: options["private"]?.boolValue ?? false)
            case .joinById: .joinByID(room: target)
            }
        // An unknown mode is refused before the player is authenticated (no guest number spent on it).
        if kind != .joinById, store.rules.capacities[target] == nil { throw MatchmakerRefusal(MatchmakingError.unknownMode(target)) }
        let store = self.store
        let request = MatchmakerAuthenticationRequest(
            head: head, options: options, remoteHost: head.remoteHost,
            guestNumbers: { () async throws(MatchmakingError) -> UInt64 in try await store.nextGuestNumber() })
        let identity: MatchmakerIdentity
        do {
            identity = try await authenticator(request)
        } catch {
            throw MatchmakerRefusal(error)
        }
        let reservation: SeatReservation
        do {
            reservation = try await store.reserveSeat(action, player: String(identity.userID))
        } catch {
            throw MatchmakerRefusal(error)
        }
        let token: ConnectToken
        do {
            token = try issuer.issue(
                for: reservation, userID: identity.userID, displayName: identity.displayName, claims: identity.claims,
                serverAddresses: [Self.serverAddress(of: reservation)])
        } catch {
            throw MatchmakerRefusal(status: 500, code: "internalError", reason: "the connect token could not be minted: \(error)")
        }
        guard let helloToken = token.helloToken else {
            throw MatchmakerRefusal(status: 500, code: "internalError", reason: "the connect token has no hello form")
        }
        var urls: [String: JSONValue] = [:]
        if let scheme = ["ws", "wss"].first(where: { reservation.processURL.hasPrefix($0 + "://") }) {
            urls[scheme] = .string(Self.url(reservation.processURL, room: reservation.room))
        }
        if let udp = reservation.processUDPURL { urls["udp"] = .string(Self.url(udp, room: reservation.room)) }
        return Self.json(
            .object([
                "room": .string(reservation.room), "mode": .string(reservation.mode), "isNewRoom": .bool(reservation.isNewRoom),
                "urls": .object(urls), "token": .string(Hex.text(token.serialized())), "helloToken": .string(Hex.text(helloToken.encoded)),
                "expiresIn": .number(Double(max(1, reservation.validFor.components.seconds))),
                "userId": .string(String(identity.userID)), "displayName": .string(identity.displayName),
            ]))
    }

    /// `base` with the room as its last path segment (one `/` between them, whether or not `base` ends with one).
    static func url(_ base: String, room: String) -> String {
        (base.hasSuffix("/") ? base : base + "/") + room
    }

    /// The server address a seat's token names: the holding process's UDP address
    /// (`udp://HOST:PORT`), which its netcode.io server checks against its own.
    ///
    /// A process that serves no UDP is reached over WebSocket only, and a WebSocket host does not
    /// read a token's server addresses; but netcode.io's format needs one, so the WebSocket URL's
    /// host and port stand in (`0.0.0.0` and the port when the host is a name, not an address).
    static func serverAddress(of reservation: SeatReservation) -> NetcodeAddress {
        if let udp = reservation.processUDPURL, let parts = authority(of: udp), let port = parts.port,
            let address = numericAddress(parts.host, port)
        {
            return address
        }
        let isSecure = reservation.processURL.hasPrefix("wss://")
        let (host, port) = authority(of: reservation.processURL) ?? ("", nil)
        let wsPort = port ?? (isSecure ? 443 : 80)
        return numericAddress(host, wsPort) ?? NetcodeAddress(ipv4: 0, 0, 0, 0, port: wsPort)
    }

    /// The host (without IPv6 brackets) and port of `scheme://host[:port][/path]`, or `nil` without `://`.
    static func authority(of url: String) -> (host: String, port: UInt16?)? {
        let parts = url.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let authority = parts[1].prefix { $0 != "/" && $0 != "?" }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            return (host, rest.hasPrefix(":") ? UInt16(rest.dropFirst()) : nil)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (String(authority), nil) }
        return (String(authority[..<colon]), UInt16(authority[authority.index(after: colon)...]))
    }

    /// The address of a numeric host and a port, or `nil` for a host name.
    private static func numericAddress(_ host: String, _ port: UInt16) -> NetcodeAddress? {
        do {
            return try NetcodeAddress(parsing: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
        } catch {
            // A host name: the caller's fallback applies (no address, not a failure).
            return nil
        }
    }
}
