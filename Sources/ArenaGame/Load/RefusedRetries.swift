/// How many times a `tickwire load` player tries again after the server refused it, before it
/// gives up (`tickwire load --refused-retries`).
///
/// A refusal is an answer, not a fault: netcode.io's denial (every server the token named was
/// full), an HTTP status such as `429` on the upgrade or the token request, a close code before
/// the welcome. A player that retried such answers for the whole run would only load the server
/// with handshakes and token requests (at 1000 players over one 256-client UDP server, 744
/// denied players made thousands of attempts in 45 s); so it retries a few times, with the
/// reconnect policy's backoff, then gives up and is counted (``ConnectionOutcomes/gaveUp``).
/// A refused hello (room full, schema mismatch) ends a player at once, as before.
package struct RefusedRetries: Hashable, Sendable {
    /// Retries after refusals unless told otherwise: 2, so three refused attempts in all.
    package static let defaultLimit = 2
    /// The most `--refused-retries` accepts.
    package static let maximumLimit = 100

    /// The retries allowed after a refused attempt, 0...``maximumLimit``.
    package let limit: Int
    /// The player's refused attempts so far.
    package private(set) var refusals = 0

    /// A budget of `limit` retries.
    ///
    /// - Parameter limit: Retries after refusals, 0...``maximumLimit``.
    package init(limit: Int = RefusedRetries.defaultLimit) {
        self.limit = limit
    }

    /// Counts one refused attempt.
    ///
    /// - Returns: Whether the player must give up: its refusals are one more than ``limit``
    ///   (the first attempt and every retry allowed were refused).
    package mutating func recordRefusal() -> Bool {
        refusals += 1
        return refusals > limit
    }
}
