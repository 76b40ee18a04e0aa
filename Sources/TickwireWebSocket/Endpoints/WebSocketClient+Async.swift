/// Why an `async` client call did not complete.
public struct WebSocketClientError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case closed(WebSocketCloseFrame)
        case timedOut(Duration)
        case shutDown
    }

    private let kind: Kind

    /// The client closed for good (reconnection off or out of attempts) with `frame`.
    public static func closed(_ frame: WebSocketCloseFrame) -> WebSocketClientError { .init(kind: .closed(frame)) }
    /// Nothing happened within `timeout`.
    public static func timedOut(_ timeout: Duration) -> WebSocketClientError { .init(kind: .timedOut(timeout)) }
    /// The client was shut down while waiting.
    public static let shutDown = WebSocketClientError(kind: .shutDown)

    /// A plain-words rendering for logs and test failures.
    public var description: String {
        switch kind {
        case .closed(let frame): "the client closed: \(frame)"
        case .timedOut(let timeout): "nothing happened within \(timeout)"
        case .shutDown: "the client was shut down"
        }
    }
}

extension WebSocketClient {
    /// Suspends until an event satisfies `predicate` (or the state already does), or `timeout` passes.
    ///
    /// - Returns: The event, a `.stateChanged` for an already-satisfying state, or `nil` on timeout or shutdown.
    func wait(timeout: Duration, until predicate: @escaping @Sendable (WebSocketClientEvent) -> Bool) async -> WebSocketClientEvent? {
        await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketClientEvent?, Never>) in
            let id = shared.withLock { shared -> UInt64? in
                let current = WebSocketClientEvent.stateChanged(shared.state)
                if predicate(current) {
                    continuation.resume(returning: current)
                    return nil
                }
                shared.nextWaiterID += 1
                shared.waiters[shared.nextWaiterID] = Waiter(isSatisfied: predicate, continuation: continuation)
                return shared.nextWaiterID
            }
            guard let id else { return }
            loop.execute { [self] in
                loop.schedule(after: timeout) { [self] in
                    let waiter = shared.withLock { $0.waiters.removeValue(forKey: id) }
                    waiter?.continuation.resume(returning: nil)
                }
            }
        }
    }

    /// Connects (if not already) and waits until the connection is open.
    ///
    /// Failed attempts are retried by the reconnect policy while the wait lasts.
    ///
    /// - Parameter timeout: The longest wait. Default 10 s.
    /// - Throws: ``WebSocketClientError`` when the client closes for good or the timeout passes.
    public func open(timeout: Duration = .seconds(10)) async throws(WebSocketClientError) {
        connect()
        let event = await wait(timeout: timeout) { event in
            switch event {
            case .stateChanged(.open), .stateChanged(.closed): true
            default: false
            }
        }
        switch event {
        case .stateChanged(.open): return
        case .stateChanged(.closed(let frame)): throw .closed(frame)
        case nil: throw state == .idle ? .shutDown : .timedOut(timeout)
        default: throw .timedOut(timeout)
        }
    }

    /// Sends `message`, first waiting (up to `timeout`) for the send buffer to drain if it is over
    /// its high-water mark: backpressure for `async` code.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - timeout: The longest wait for the buffer to drain. Default 30 s.
    /// - Returns: What became of the message (see ``send(_:)``).
    @discardableResult
    public func send(_ message: WebSocketMessage, timeout: Duration = .seconds(30)) async -> SendResult {
        if let connection, connection.isOverHighWaterMark {
            _ = await wait(timeout: timeout) { [weak connection] event in
                switch event {
                case .writable, .disconnected: true
                case .stateChanged(let state): state != .open || !(connection?.isOverHighWaterMark ?? false)
                default: false
                }
            }
        }
        return sendNow(message)
    }

    /// Closes for good and waits (up to `timeout`) until the close handshake is over.
    ///
    /// - Parameters:
    ///   - code: The status code, 1000 by default.
    ///   - reason: Up to 123 UTF-8 bytes.
    ///   - timeout: The longest wait. Default 10 s.
    /// - Returns: The final close frame, or `nil` when the wait timed out.
    @discardableResult
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "", timeout: Duration = .seconds(10)) async
        -> WebSocketCloseFrame?
    {
        closeNow(code: code, reason: reason)
        let event = await wait(timeout: timeout) { event in
            if case .stateChanged(.closed) = event { return true }
            return false
        }
        if case .stateChanged(.closed(let frame)) = event { return frame }
        return nil
    }
}
