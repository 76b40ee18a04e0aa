import Synchronization
import TickwireFoundation
import TickwireSim
import TickwireWebSocket

/// A client-side ``TransportConnection`` over a ``WebSocketClient`` to a `ws://` URL.
///
/// One instance is one connection: it does not reconnect on its own (the session layer
/// resumes over a new connection, with its token). Frames sent before the socket opens are
/// queued and go out once it does. Thread-safe: the inbox is Mutex-protected and
/// the client is Sendable.
public final class WebSocketClientTransportConnection: TransportConnection, Sendable {
    let inbox = TransportInbox()
    private let client: WebSocketClient
    private static let nextID = Atomic<UInt64>(1)
    /// A number for logs (client connections are numbered in the order they were made).
    public let connectionID: UInt64
    /// The URL's path (`/main` for `ws://host:7777/main`): the room a ``ClientSession`` joins
    /// when its ``ClientConfiguration/room`` is `nil`.
    public let requestPath: String?

    /// Connects to `url`, offering the `tickwire.v1` subprotocol. The URL's path names the
    /// room a ``ClientSession`` over this connection joins (``requestPath``, ``ClientSession/room``).
    ///
    /// - Parameters:
    ///   - url: The server's URL, for example `ws://127.0.0.1:7000/play`.
    ///   - configuration: Compression, keepalive and buffers; reconnection is turned off.
    ///   - loop: The event loop to run on (share one among many connections, as a load tool
    ///     should), or `nil` for a loop of its own, stopped by ``close()``.
    /// - Throws: ``SystemError`` when the client's loop cannot be started.
    public init(
        url: WebSocketURL, configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(), loop: EventLoop? = nil
    ) throws(SystemError) {
        var configuration = configuration
        configuration.subprotocols = [tickwireWebSocketSubprotocol]
        configuration.reconnect = ReconnectPolicy(isEnabled: false)
        connectionID = WebSocketClientTransportConnection.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        requestPath = url.path
        let inbox = self.inbox
        client = try WebSocketClient(url: url, configuration: configuration, loop: loop) { event in
            switch event {
            case .message(.binary(let bytes)):
                inbox.push(.frame(bytes))
            case .disconnected(let frame):
                inbox.push(.closed(TransportCloseReason(frame)))
            case .stateChanged(.closed(let frame)):
                inbox.push(.closed(TransportCloseReason(frame)))
            default:
                break
            }
        }
        client.connect()
    }

    /// Sends `frame` as one binary message (queued while the connection is opening).
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: The WebSocket client's ``SendResult`` as a ``TransportSendResult``:
    ///   ``TransportSendResult/backedUp`` when its send buffer (or, while opening, its queue) is
    ///   full, ``TransportSendResult/closed`` once either side closed.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult {
        guard !inbox.isClosed else { return .closed }
        return TransportSendResult(client.send(binary: frame))
    }

    /// Why this connection's upgrade handshake failed, or `nil` (it opened, is still opening, or
    /// failed another way): a server's refusal, with its status, its words and the budget it
    /// named, is ``WebSocketHandshakeError/refusal``. Known by the time the connection's
    /// `.closed` event is drained.
    public var lastHandshakeError: WebSocketHandshakeError? { client.lastHandshakeError }

    /// Bytes queued in the WebSocket send buffer.
    public var bufferedBytes: Int { client.connection?.bufferedByteCount ?? 0 }

    /// Whether a frame sent now would be taken: `backedUp` when more than `budgetBytes` are
    /// queued or the send buffer is at its hard limit (``SendBufferLimits/hardLimit``).
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What ``send(_:)`` would do with a frame now (while the socket is still
    ///   opening, `taken`: the client queues the frame).
    public func readiness(budgetBytes: Int) -> TransportSendResult {
        guard !inbox.isClosed else { return .closed }
        guard let connection = client.connection else { return .taken }
        return TransportSendResult(buffered: connection.bufferedByteCount, budgetBytes: budgetBytes, limits: connection.sendBufferLimits)
    }

    /// Takes the events received since the last call.
    ///
    /// - Returns: The frames, and `.closed` once the connection ended: an upgrade the server
    ///   refused ends with ``TransportCloseReason/refused(_:)``, its status and words.
    public func drain() -> [TransportEvent] { inbox.drain().map(namingRefusal) }

    /// Takes the events received since the last call, each with how long it waited since the
    /// socket loop took it off the socket.
    ///
    /// - Returns: The frames and their waits, and `.closed` once the connection ended (an
    ///   upgrade the server refused ends with ``TransportCloseReason/refused(_:)``).
    public func drainArrivals() -> [TransportArrival] {
        inbox.drainArrivals().map { TransportArrival(namingRefusal($0.event), waited: $0.waited) }
    }

    /// The event, or, for the end of a connection whose upgrade the server refused, an end that
    /// carries the refusal (the WebSocket client records it before it reports the end).
    private func namingRefusal(_ event: TransportEvent) -> TransportEvent {
        guard case .closed(let reason) = event, reason.code == nil, let refusal = client.lastHandshakeError?.refusal else {
            return event
        }
        return .closed(.refused(TransportRefusal(status: refusal.status, reason: refusal.reasonPhrase, text: refusal.body)))
    }

    /// How long ``close()`` waits for the server's close reply before dropping the socket.
    public static let closeWait: Duration = .milliseconds(500)

    /// Closes the connection (close handshake with `code` and `reason`) and stops the client's loop.
    ///
    /// A connection on a loop of its own (made without `loop:`, as a game client's is) waits
    /// for the server's close reply, at most ``closeWait``, so that the frames sent just before,
    /// such as a session's disconnect message, reach the server even when the process exits
    /// right after. A connection on a shared loop (a load tool's thousand) does not block its
    /// caller: it drops the socket at once, and what was still queued may be lost.
    ///
    /// - Parameters:
    ///   - code: The close code (1000 for a normal end, 1001 when the app exits).
    ///   - reason: The reason text, cut to ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    public func close(code: CloseCode, reason: String) {
        guard !inbox.isClosed else { return }
        inbox.closeLocally()
        client.close(code: WebSocketCloseCode(code), reason: reason.prefix(utf8Bytes: transportCloseReasonMaximumBytes))
        if client.hasOwnLoop && !client.loop.isInLoopThread {
            client.shutdown(afterClosingWithin: Self.closeWait)
        } else {
            client.shutdown()
        }
    }

    /// Whether the connection is closed (either side).
    public var isClosed: Bool { inbox.isClosed }

    deinit {
        client.shutdown()
    }
}
