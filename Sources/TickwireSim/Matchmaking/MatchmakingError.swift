/// Why a matchmaker gave no seat, with the HTTP status its endpoints answer.
public enum MatchmakingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The mode is not one the matchmaker serves (404).
    case unknownMode(String)
    /// `join`: no open room of the mode has a free seat (404).
    case noOpenRoom(mode: String)
    /// `joinByID`: no room of that name was made by the matchmaker, or it has closed (404).
    case unknownRoom(String)
    /// `joinByID`: the room has no free seat (409).
    case roomFull(String)
    /// `joinByID`: the room is locked by its game (409).
    case roomLocked(String)
    /// No live process can take a new room (503).
    case noLiveProcess
    /// The store behind the matchmaker cannot be reached or answered wrongly (503); the text says how.
    case unavailable(String)

    /// The status of the matchmaker's HTTP answer.
    public var httpStatus: Int {
        switch self {
        case .unknownMode, .noOpenRoom, .unknownRoom: 404
        case .roomFull, .roomLocked: 409
        case .noLiveProcess, .unavailable: 503
        }
    }

    /// The reason, for a person.
    public var description: String {
        switch self {
        case .unknownMode(let mode): "no mode named \"\(mode)\""
        case .noOpenRoom(let mode): "no open room of mode \"\(mode)\" has a free seat"
        case .unknownRoom(let room): "no room named \"\(room)\""
        case .roomFull(let room): "the room \"\(room)\" is full"
        case .roomLocked(let room): "the room \"\(room)\" is locked"
        case .noLiveProcess: "no live process can take a new room"
        case .unavailable(let why): "the matchmaker's store is unavailable: \(why)"
        }
    }
}
