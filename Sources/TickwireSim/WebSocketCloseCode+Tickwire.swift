import TickwireWebSocket

/// Application close codes (4000...4999) of Tickwire's game protocol; see
/// `Protocol/PROTOCOL.md` section 1. They live here, with the game layer over WebSocket
/// (``WebSocketTransportServer``), because the WebSocket layer itself never sends them.
extension WebSocketCloseCode {
    /// 4000: the client's schema (fingerprint) does not match the server's.
    public static let tickwireSchemaMismatch = WebSocketCloseCode(uncheckedValue: 4000)
    /// 4001: the room has no free slot for another player.
    public static let tickwireRoomFull = WebSocketCloseCode(uncheckedValue: 4001)
    /// 4002: the server removed the player (moderation, cheating, admin action).
    public static let tickwireKicked = WebSocketCloseCode(uncheckedValue: 4002)
    /// 4003: the peer speaks a Tickwire protocol version this endpoint does not support.
    public static let tickwireUnsupportedVersion = WebSocketCloseCode(uncheckedValue: 4003)
    /// 4004: the peer sent a Tickwire frame that failed to decode or broke a frame limit.
    public static let tickwireMalformedFrame = WebSocketCloseCode(uncheckedValue: 4004)
    /// 4005: the peer sent nothing (no input, no acknowledgement) for too long.
    public static let tickwireIdleTimeout = WebSocketCloseCode(uncheckedValue: 4005)
    /// 4006: the server is shutting the room down (end of match, maintenance).
    public static let tickwireRoomClosed = WebSocketCloseCode(uncheckedValue: 4006)
    /// 4007: the room is served by another process of the fleet: reconnect to the URL the
    /// reject (redirect) or the disconnect (moved) carries, or to the client's entry URLs.
    public static let tickwireMoved = WebSocketCloseCode(uncheckedValue: 4007)
}
