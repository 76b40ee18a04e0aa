/// The WebSocket protocol version this library implements (RFC 6455, `Sec-WebSocket-Version: 13`).
public let webSocketProtocolVersion = 13
