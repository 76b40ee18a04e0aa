import TickwireCodec
import TickwireFoundation
import TickwireNetcode
import TickwireUDPTransport

/// A seat the matchmaker reserved (`Protocol/MATCHMAKER.md` section 2): the room, where it is
/// served, and the connect token that admits this player there once, within ``expiresIn`` seconds.
public struct MatchmakerSeat: Hashable, Sendable {
    /// The reserved room's name.
    public let room: String
    /// The room's mode.
    public let mode: String
    /// Whether the matchmaker made the room for this seat.
    public let isNewRoom: Bool
    /// Where the process holding the room serves it, by transport (`ws` or `wss`, and `udp` when
    /// it serves UDP): each URL's path is the room.
    public let urls: [String: String]
    /// The netcode.io 1.02 connect token (2048 bytes), for `udp://`.
    public let connectToken: ConnectToken
    /// What a WebSocket hello carries of the same token (PROTOCOL.md 5.3.1), for `ws(s)://`:
    /// put it in ``ClientConfiguration/connectToken``.
    public let helloToken: Message.Hello.ConnectToken
    /// Seconds the seat and its token wait for the first hello.
    public let expiresIn: Int
    /// The player's 64-bit user id (the token's client id).
    public let userID: UInt64
    /// The name the room shows for the player.
    public let displayName: String

    /// The WebSocket URL to connect to: `wss` when the seat has one, else `ws`; `nil` when the
    /// process serves neither.
    public var webSocketURL: String? { urls["wss"] ?? urls["ws"] }

    /// Reads a seat from a `200 OK` answer's JSON.
    ///
    /// - Parameter json: The answer's body, parsed.
    /// - Throws: The member that is missing or wrong, in words.
    init(json: JSONValue) throws(MatchmakerAnswerError) {
        guard case .object = json else { throw MatchmakerAnswerError("the seat is not a JSON object") }
        room = try json.requiredString("room")
        mode = try json.requiredString("mode")
        guard let isNewRoom = json["isNewRoom"]?.boolValue else { throw MatchmakerAnswerError("'isNewRoom' is not a boolean") }
        self.isNewRoom = isNewRoom
        guard case .object(let members) = json["urls"] else { throw MatchmakerAnswerError("'urls' is not an object") }
        var urls: [String: String] = [:]
        for (transport, value) in members {
            guard let url = value.stringValue else { throw MatchmakerAnswerError("'urls.\(transport)' is not a string") }
            urls[transport] = url
        }
        guard !urls.isEmpty else { throw MatchmakerAnswerError("'urls' names no transport") }
        self.urls = urls
        let tokenHex = try json.requiredString("token")
        guard tokenHex.utf8.count == 2 * Netcode.connectTokenBytes, let tokenBytes = Hex.bytes(tokenHex) else {
            throw MatchmakerAnswerError("'token' is not \(2 * Netcode.connectTokenBytes) hexadecimal digits")
        }
        do throws(NetcodeError) {
            connectToken = try ConnectToken(bytes: tokenBytes)
        } catch {
            throw MatchmakerAnswerError("'token' is not a netcode.io connect token: \(error)")
        }
        let helloHex = try json.requiredString("helloToken")
        let helloDigits = 2 * Message.Hello.ConnectToken.encodedBytes
        guard helloHex.utf8.count == helloDigits, let helloBytes = Hex.bytes(helloHex) else {
            throw MatchmakerAnswerError("'helloToken' is not \(helloDigits) hexadecimal digits")
        }
        do throws(FrameError) {
            helloToken = try Message.Hello.ConnectToken(decoding: helloBytes)
        } catch {
            throw MatchmakerAnswerError("'helloToken' does not decode: \(error)")
        }
        guard let expiresIn = json["expiresIn"]?.integerValue, expiresIn >= 0, expiresIn <= Int64(Int32.max) else {
            throw MatchmakerAnswerError("'expiresIn' is not a whole number of seconds")
        }
        self.expiresIn = Int(expiresIn)
        let userText = try json.requiredString("userId")
        // A decimal string (MATCHMAKER.md 2): digits only, within 64 bits.
        guard !userText.isEmpty, userText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let userID = UInt64(userText) else {
            throw MatchmakerAnswerError("'userId' is not a decimal 64-bit number in a string")
        }
        self.userID = userID
        displayName = try json.requiredString("displayName")
    }
}

/// How an answer breaks `Protocol/MATCHMAKER.md`, in words (inside ``MatchmakerClientError``).
struct MatchmakerAnswerError: Error {
    let words: String

    init(_ words: String) { self.words = words }
}

extension JSONValue {
    /// The string member `name`, or an error naming it.
    func requiredString(_ name: String) throws(MatchmakerAnswerError) -> String {
        guard let text = self[name]?.stringValue else { throw MatchmakerAnswerError("'\(name)' is not a string") }
        return text
    }
}
