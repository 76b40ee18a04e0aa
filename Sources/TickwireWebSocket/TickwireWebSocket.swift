// The I/O layer's public types (`EventLoop`, `SocketAddress`, `SystemError`, `TimerHandle`)
// appear in this module's public API, so a user of the TickwireWebSocket product gets them
// with `import TickwireWebSocket`.
@_exported import TickwireIO

/// The WebSocket protocol version this library implements (RFC 6455, `Sec-WebSocket-Version: 13`).
package let webSocketProtocolVersion = 13
