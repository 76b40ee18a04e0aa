import Tickwire

extension Arena: PersistableGame {
    /// The world as bytes (``ArenaWorld/encoded()``), for the room directory and the state file.
    ///
    /// - Parameter world: The world.
    /// - Returns: Its encoding.
    package func encodeWorld(_ world: ArenaWorld) -> [UInt8] {
        world.encoded()
    }

    /// The world ``encodeWorld(_:)`` encoded, on this arena's map.
    ///
    /// - Parameter bytes: The encoding.
    /// - Returns: The world.
    /// - Throws: ``RoomStateError`` when the bytes are not an arena world (with the
    ///   ``ArenaStateError``'s words) or its map is not this arena's.
    package func decodeWorld(_ bytes: [UInt8]) throws(RoomStateError) -> ArenaWorld {
        let world: ArenaWorld
        do throws(ArenaStateError) {
            world = try ArenaWorld(decoding: bytes)
        } catch {
            throw RoomStateError.invalidWorld(error.description)
        }
        guard world.map == map else {
            throw RoomStateError.invalidWorld(ArenaStateError(.otherMap(width: world.map.width, height: world.map.height)).description)
        }
        return world
    }
}
