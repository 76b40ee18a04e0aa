/// Tickwire's layout of a netcode.io connect token's 256 bytes of user data
/// (`Protocol/PROTOCOL.md` section 5.3.2): the room the token reserves, the player's display
/// name and the game's own claims.
///
/// Layout: layout version (u8, 1), room (u8 length, 0…64, then UTF-8), display name (u8 length,
/// 0…64, then UTF-8), claims (u8 length, then that many bytes), zero bytes to the end. Every
/// length is checked against its limit and the bytes left before anything is read; a byte of
/// padding other than zero is refused, so one identity has one encoding.
public struct ConnectTokenUserData: Hashable, Sendable {
    /// The size of a connect token's user data (netcode.io's).
    public static let byteCount = 256
    /// The layout version this type reads and writes.
    public static let layoutVersion: UInt8 = 1
    /// The most UTF-8 bytes of the room (the hello's room name limit).
    public static let maximumRoomBytes = 64
    /// The most UTF-8 bytes of the display name.
    public static let maximumDisplayNameBytes = 64
    /// The most claim bytes that fit: 256 less the version and the three length bytes, with an
    /// empty room and name (each byte of room or name takes one from it).
    public static let maximumClaimsBytes = byteCount - 4

    /// The room the token reserves (the empty string for the server's default room).
    public var room: String
    /// The name the player is shown under, as the issuer verified it.
    public var displayName: String
    /// The game's own claims about the player, opaque to Tickwire.
    public var claims: [UInt8]

    /// Creates user data.
    ///
    /// - Parameters:
    ///   - room: The room the token reserves.
    ///   - displayName: The player's display name.
    ///   - claims: The game's claims.
    public init(room: String, displayName: String, claims: [UInt8] = []) {
        self.room = room
        self.displayName = displayName
        self.claims = claims
    }

    /// Reads user data in Tickwire's layout.
    ///
    /// - Parameter bytes: The token's 256 bytes of user data.
    /// - Throws: ``ConnectTokenUserDataError``: a size other than 256, another layout version, a
    ///   length over its limit or past the end, text that is not UTF-8, or padding that is not zero.
    public init(decoding bytes: [UInt8]) throws(ConnectTokenUserDataError) {
        guard bytes.count == Self.byteCount else { throw .wrongSize(bytes.count) }
        guard bytes[0] == Self.layoutVersion else { throw .unknownLayout(bytes[0]) }
        var offset = 1
        func field(_ name: String, limit: Int) throws(ConnectTokenUserDataError) -> [UInt8] {
            guard offset < bytes.count else { throw .truncated(field: name, offset: offset) }
            let length = Int(bytes[offset])
            offset += 1
            guard length <= limit else { throw .lengthExceeded(field: name, length: length, limit: limit) }
            guard length <= bytes.count - offset else { throw .truncated(field: name, offset: offset) }
            defer { offset += length }
            return Array(bytes[offset..<(offset + length)])
        }
        let roomBytes = try field("room", limit: Self.maximumRoomBytes)
        guard let room = String(validating: roomBytes, as: UTF8.self) else { throw .invalidUTF8(field: "room") }
        let nameBytes = try field("display name", limit: Self.maximumDisplayNameBytes)
        guard let name = String(validating: nameBytes, as: UTF8.self) else { throw .invalidUTF8(field: "display name") }
        let claims = try field("claims", limit: Self.maximumClaimsBytes)
        if let index = bytes[offset...].firstIndex(where: { $0 != 0 }) { throw .nonZeroPadding(offset: index) }
        self.init(room: room, displayName: name, claims: claims)
    }

    /// The 256 bytes of user data in Tickwire's layout.
    ///
    /// - Returns: ``byteCount`` bytes.
    /// - Throws: ``ConnectTokenUserDataError``: `lengthExceeded` for a room or name over its limit,
    ///   or claims that do not fit beside them.
    public func encoded() throws(ConnectTokenUserDataError) -> [UInt8] {
        let room = Array(room.utf8)
        let name = Array(displayName.utf8)
        guard room.count <= Self.maximumRoomBytes else {
            throw .lengthExceeded(field: "room", length: room.count, limit: Self.maximumRoomBytes)
        }
        guard name.count <= Self.maximumDisplayNameBytes else {
            throw .lengthExceeded(field: "display name", length: name.count, limit: Self.maximumDisplayNameBytes)
        }
        let claimsLimit = Self.maximumClaimsBytes - room.count - name.count
        guard claims.count <= claimsLimit else { throw .lengthExceeded(field: "claims", length: claims.count, limit: claimsLimit) }
        var bytes: [UInt8] = [Self.layoutVersion]
        bytes.reserveCapacity(Self.byteCount)
        for part in [room, name, claims] {
            bytes.append(UInt8(part.count))
            bytes.append(contentsOf: part)
        }
        bytes.append(contentsOf: repeatElement(0, count: Self.byteCount - bytes.count))
        return bytes
    }
}

/// Why bytes are not user data in Tickwire's layout (``ConnectTokenUserData``), or why an
/// identity does not fit it.
public struct ConnectTokenUserDataError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case wrongSize(Int)
        case unknownLayout(UInt8)
        case truncated(field: String, offset: Int)
        case lengthExceeded(field: String, length: Int, limit: Int)
        case invalidUTF8(field: String)
        case nonZeroPadding(offset: Int)
    }

    let kind: Kind

    static func wrongSize(_ size: Int) -> Self { Self(kind: .wrongSize(size)) }
    static func unknownLayout(_ version: UInt8) -> Self { Self(kind: .unknownLayout(version)) }
    static func truncated(field: String, offset: Int) -> Self { Self(kind: .truncated(field: field, offset: offset)) }
    static func lengthExceeded(field: String, length: Int, limit: Int) -> Self {
        Self(kind: .lengthExceeded(field: field, length: length, limit: limit))
    }
    static func invalidUTF8(field: String) -> Self { Self(kind: .invalidUTF8(field: field)) }
    static func nonZeroPadding(offset: Int) -> Self { Self(kind: .nonZeroPadding(offset: offset)) }

    /// The error as a signature (`Protocol/vectors/tokens/README.md`), e.g. `lengthExceeded(field: "room", length: 65, limit: 64)`.
    public var description: String {
        switch kind {
        case .wrongSize(let size): "wrongSize(\(size))"
        case .unknownLayout(let version): "unknownLayout(\(version))"
        case .truncated(let field, let offset): "truncated(field: \"\(field)\", offset: \(offset))"
        case .lengthExceeded(let field, let length, let limit): "lengthExceeded(field: \"\(field)\", length: \(length), limit: \(limit))"
        case .invalidUTF8(let field): "invalidUTF8(field: \"\(field)\")"
        case .nonZeroPadding(let offset): "nonZeroPadding(offset: \(offset))"
        }
    }
}
