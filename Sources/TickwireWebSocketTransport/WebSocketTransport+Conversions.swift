import TickwireSim
import TickwireWebSocket

extension TransportSendResult {
    /// The transport's view of a WebSocket ``SendResult``: accepted (over the high-water mark
    /// or not) is taken; a full buffer is backed up; a connection not open is closed.
    init(_ result: SendResult) {
        if result.isAccepted {
            self = .taken
        } else if result == .droppedBufferFull {
            self = .backedUp
        } else {
            self = .closed
        }
    }

    /// Readiness from a WebSocket send buffer: backed up over the sender's budget or at the
    /// buffer's hard limit (where ``WebSocketConnection/send(_:)`` refuses).
    init(buffered: Int, budgetBytes: Int, limits: SendBufferLimits) {
        self = buffered > budgetBytes || buffered >= limits.hardLimit ? .backedUp : .taken
    }
}

extension TransportCloseReason {
    /// The transport's view of how a WebSocket connection ended: a close frame that carried a
    /// code the peer may send (RFC 6455 7.4) is ``closedByPeer(code:text:)`` with that code
    /// and reason; anything else (no close frame, 1006, a close without a code) is
    /// ``connectionLost`` (no code), with the words the WebSocket layer reported.
    init(_ frame: WebSocketCloseFrame) {
        if let code = frame.code, code.isValidOnWire {
            self = .closedByPeer(code: CloseCode(code), text: frame.reason)
        } else {
            self = TransportCloseReason(TransportCloseReason.connectionLost.name, code: nil, text: frame.reason)
        }
    }
}

extension CloseCode {
    /// The game layer's code for a WebSocket close code: the same number (both take 1000...4999).
    ///
    /// - Parameter code: The WebSocket close code.
    init?(_ code: WebSocketCloseCode) {
        self.init(rawValue: code.rawValue)
    }
}

extension WebSocketCloseCode {
    /// The WebSocket close code that carries a game layer's code: the same number.
    ///
    /// - Parameter code: The game layer's close code.
    init(_ code: CloseCode) {
        self.init(uncheckedValue: code.rawValue)
    }
}
