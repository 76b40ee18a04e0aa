/// A ``Game`` whose worlds can be stored as bytes: what a ``Host`` with a ``RoomDirectory`` needs
/// to save each room's world (``RoomStateEncoding``) so that another process can carry it on.
///
/// Both requirements have no default: only the game knows what its world holds. The bytes are
/// the game's own format; ``RoomStateEncoding`` frames them with the room's name, tick and
/// clients and checks them whole (length, checksum) before ``decodeWorld(_:)`` sees them.
public protocol PersistableGame: Game {
    /// The world as bytes, for ``decodeWorld(_:)`` in this or another process of the same game.
    ///
    /// - Parameter world: The world.
    /// - Returns: Its encoding, at most ``RoomStateEncoding/Limits/maximumWorldBytes`` long to be
    ///   read back with the default limits.
    func encodeWorld(_ world: State) -> [UInt8]

    /// The world that ``encodeWorld(_:)`` encoded.
    ///
    /// - Parameter bytes: The encoding.
    /// - Returns: The world.
    /// - Throws: ``RoomStateError`` (made with ``RoomStateError/invalidWorld(_:)``) when the bytes
    ///   are not a world of this game.
    func decodeWorld(_ bytes: [UInt8]) throws(RoomStateError) -> State
}
