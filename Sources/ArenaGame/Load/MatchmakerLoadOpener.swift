import Tickwire

/// How `tickwire load --matchmaker URL` gives one player its seats: before its first attempt, and
/// again whenever its session loses the player for good, it asks the matchmaker (`joinOrCreate`
/// of the mode, from the player's source address) and hands the session the seat as a
/// ``RejoinTicket`` (``ReconnectingSession/rejoiner``).
///
/// It keeps why the last request failed (``takeFailure()``), so that the load tool counts a
/// matchmaker's refusal by its status and code, and the rooms its seats were in. Not
/// thread-safe: one player's driver thread uses it.
package final class MatchmakerLoadOpener {
    /// The matchmaker, asked from the player's source address.
    package let matchmaker: Matchmaker
    /// The mode asked for.
    package let mode: String
    /// The options sent (the player's `"name"`).
    package let options: [String: JSONValue]
    /// The seats the matchmaker gave, oldest first.
    package private(set) var seats: [MatchmakerSeat] = []
    private var failure: MatchmakerClientError?

    /// An opener asking `matchmaker` for seats of `mode`.
    ///
    /// - Parameters:
    ///   - matchmaker: The matchmaker (its ``Matchmaker/source`` the player's address).
    ///   - mode: The mode.
    ///   - name: The player's name, sent as the `"name"` option.
    package init(matchmaker: Matchmaker, mode: String, name: String) {
        self.matchmaker = matchmaker
        self.mode = mode
        self.options = ["name": .string(name)]
    }

    /// Asks for a seat, blocking the driver thread up to the matchmaker's timeout.
    ///
    /// - Returns: The seat's WebSocket URL, room and hello token.
    /// - Throws: ``MatchmakerClientError`` (also kept for ``takeFailure()``).
    package func ticket() throws(MatchmakerClientError) -> RejoinTicket {
        do throws(MatchmakerClientError) {
            let seat = try matchmaker.seatNow(.joinOrCreate(mode: mode), options: options)
            guard let url = seat.webSocketURL else {
                throw MatchmakerClientError(.invalidAnswer(status: 200, words: "the seat in room '\(seat.room)' has no ws or wss URL"))
            }
            seats.append(seat)
            return RejoinTicket(url: url, room: seat.room, connectToken: seat.helloToken)
        } catch {
            failure = error
            throw error
        }
    }

    /// Takes the last request's failure, if one happened since the last call.
    ///
    /// - Returns: The failure, or `nil`.
    package func takeFailure() -> MatchmakerClientError? {
        defer { failure = nil }
        return failure
    }
}
