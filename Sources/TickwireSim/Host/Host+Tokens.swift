import TickwireCodec

extension Host {
    /// What the host makes of a new player's connect token (PROTOCOL.md 5.3.1).
    enum TokenCheck {
        /// No token, and the host does not require one: anonymous play.
        case anonymous
        /// A token that opened, reserves this room and has not been used: join with its identity
        /// (and remember it as used once the player is in).
        case verified(VerifiedConnectToken)
        /// Refused: the reject's reason and words, and the identity when the token opened.
        case refused(ConnectTokenRefusal, PlayerIdentity?)
        /// The transport verified the connection's token (UDP): join with that identity.
        case transport(PlayerIdentity)
    }

    /// Checks the connect token of a hello that asks for a new player in `room`: missing (when
    /// required), then the verifier's checks (expired, forged), then the room, then whether it
    /// was used before, then whether the used-token set has room. Remembers nothing: ``useToken(_:)``
    /// does once the player is in. A connection whose transport verified a token (UDP) brings its
    /// identity, and only its room is checked.
    ///
    /// - Parameters:
    ///   - hello: The hello.
    ///   - room: The room the hello names (the host runs it, or opens it only once the token passes).
    ///   - connection: The connection the hello came on.
    /// - Returns: What to do.
    func checkToken(of hello: Message.Hello, room: String, on connection: any TransportConnection) -> TokenCheck {
        if let identity = connection.identity {
            // netcode.io's handshake opened the token, checked its expiry and let it connect once;
            // what is left is the room its user data reserves, when it is Tickwire's layout.
            if let reserved = identity.room, reserved != room {
                return .refused(
                    ConnectTokenRefusal(.tokenWrongRoom, "the connect token reserves room '\(reserved)', not room '\(room)'"), identity)
            }
            return .transport(identity)
        }
        guard let token = hello.connectToken, let verifier = configuration.tokenVerifier else {
            guard configuration.requiresTokens else { return .anonymous }
            let words =
                hello.connectToken == nil
                ? "this server admits only players with a connect token, and the hello carried none"
                : "this server admits only players with a connect token, and has no key to check one"
            return .refused(ConnectTokenRefusal(.tokenRequired, words), nil)
        }
        let verified: VerifiedConnectToken
        do {
            verified = try verifier.verify(token)
        } catch {
            return .refused(error, nil)
        }
        guard verified.room == room else {
            return .refused(
                ConnectTokenRefusal(.tokenWrongRoom, "the connect token reserves room '\(verified.room)', not room '\(room)'"),
                verified.identity)
        }
        switch usedConnectTokens.check(tag: verified.tag, now: verified.verifiedAt) {
        case .admitted:
            return .verified(verified)
        case .alreadyUsed:
            return .refused(
                ConnectTokenRefusal(
                    .tokenAlreadyUsed, "the connect token was used already: each joins once; ask for a new one"),
                verified.identity)
        case .full:
            return .refused(
                ConnectTokenRefusal(
                    .tokensExhausted,
                    "the server holds its most used connect tokens (\(usedConnectTokens.capacity), "
                        + "HostConfiguration.maximumUsedTokens), none expired yet; try again later"),
                verified.identity)
        }
    }

    /// Remembers a token as used, once its player is in.
    func useToken(_ verified: VerifiedConnectToken) {
        let outcome = usedConnectTokens.use(tag: verified.tag, expireTimestamp: verified.expireTimestamp, now: verified.verifiedAt)
        // ``checkToken(of:room:)`` ran on this thread just before, with nothing in between that
        // adds tokens, so the token goes in; anything else is a bug worth hearing of.
        if outcome != .admitted {
            configuration.logSink.log(
                .error, "a checked connect token could not be remembered as used",
                metadata: ["outcome": "\(outcome)", "user": "\(verified.identity.userID)"], source: "host")
        }
    }
}
