/// Why a ``Host`` refused to restore a ``HostState``.
public struct HostStateError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case duplicateRoom(String)
        case invalidClientID(room: String)
        case duplicateClientID(UInt32)
        case invalidToken(client: UInt32, length: Int, limit: Int)
        case duplicateToken(client: UInt32)
        case overCapacity(room: String, clients: Int, capacity: Int)
        case compression(String)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// What is wrong with the state, in plain words.
    public var description: String {
        switch reason {
        case let .duplicateRoom(name):
            "the state lists room '\(name)' twice"
        case let .invalidClientID(room):
            "room '\(room)' lists a client with id 0, which is never handed out"
        case let .duplicateClientID(id):
            "client id \(id) appears twice (ids are unique across the host's rooms)"
        case let .invalidToken(client, length, limit):
            "client \(client)'s resume token is \(length) bytes; it must be 1 to \(limit)"
        case let .duplicateToken(client):
            "client \(client)'s resume token is also another client's"
        case let .overCapacity(room, clients, capacity):
            "room '\(room)' lists \(clients) clients, over the room capacity of \(capacity)"
        case let .compression(text):
            "could not set up a restored client's compression: \(text)"
        }
    }
}
