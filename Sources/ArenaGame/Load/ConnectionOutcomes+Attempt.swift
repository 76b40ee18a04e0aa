import Tickwire

extension ConnectionOutcomes {
    /// Counts the attempt a reconnecting session just failed, by what the server said: a refused
    /// hello by its reason; a refused upgrade by its HTTP status (read from the WebSocket
    /// connection's ``WebSocketClientTransportConnection/lastHandshakeError``); a close with a
    /// code by that code; anything else by the kind of failure its close reason names.
    ///
    /// - Parameters:
    ///   - session: The session whose ``ReconnectingSession/failedAttempts`` just grew; its
    ///     ``ReconnectingSession/connection`` is still the failed one.
    ///   - tokenFailure: Over UDP, why the attempt's token fetch failed, if it did: a status
    ///     counts as a refusal explained by it, anything else as ``Failure/tokenFetchFailed``.
    ///   - matchmakerFailure: Through a matchmaker, why the attempt's seat request failed, if it
    ///     did: a refusal counts by its status and code, anything else as ``Failure/matchmakerFailed``.
    /// - Returns: Whether the server refused the attempt (a reject, an HTTP status, a close code,
    ///   netcode.io's denial), which ``RefusedRetries`` counts, rather than it failing unanswered.
    @discardableResult
    package mutating func record<G: Game>(
        failedAttemptOf session: ReconnectingSession<G>, tokenFailure: UDPTransportError? = nil,
        matchmakerFailure: MatchmakerClientError? = nil
    ) -> Bool {
        if let matchmakerFailure {
            guard matchmakerFailure.code != nil else {
                recordFailure(.matchmakerFailed)
                return false
            }
            recordRefusal(RefusalExplanation(matchmaker: matchmakerFailure))
            return true
        }
        if let tokenFailure {
            guard let (status, response) = tokenFailure.tokenRefusal else {
                recordFailure(.tokenFetchFailed)
                return false
            }
            recordRefusal(RefusalExplanation(tokenStatus: status, response: response))
            return true
        }
        if case .rejected(let reason, _) = session.session.status {
            recordRefusal(reason)
            return reason != .redirect
        }
        let webSocket = session.connection as? WebSocketClientTransportConnection
        if let refusal = webSocket?.lastHandshakeError?.refusal {
            recordRefusal(RefusalExplanation(refusal: refusal))
            return true
        }
        let closeReason = session.session.closeReason
        if let closeReason, let code = closeReason.code {
            recordRefusal(RefusalExplanation(closeCode: code, text: closeReason.text))
            return true
        }
        let failure = Failure.classifying(closeReason)
        recordFailure(failure)
        return failure == .netcodeDenied
    }
}
