/// The sans-IO core of one WebSocket connection (RFC 6455 after the handshake, with
/// optional permessage-deflate, RFC 7692): bytes in, events and bytes out; no sockets,
/// no clocks, no threads.
///
/// The I/O layer feeds every received chunk to ``receive(_:output:onEvent:)``, which
/// reports whole messages and appends to `output` whatever must be written in reply
/// (pongs, the close reply). To send, it calls ``sendText(_:output:)``,
/// ``sendBinary(_:output:)-([UInt8],_)``, ``sendPing(_:output:)`` or ``close(code:reason:output:)``,
/// which append frame bytes to `output`. The caller owns `output` and writes it to the
/// socket in order.
///
/// **Failing.** When the peer breaks the protocol or a ``WebSocketLimits`` value,
/// `receive` appends a close frame with the code RFC 6455 names (1002, 1007, 1009, …),
/// moves to ``WebSocketConnectionState/closed`` and throws the ``WebSocketError``: flush
/// `output`, then close the socket.
///
/// **Closing.** ``close(code:reason:output:)`` moves to ``WebSocketConnectionState/closing``
/// ("waiting for the close reply"); the I/O layer starts its close timer then, and closes the
/// socket when the peer's close arrives (the state becomes `closed`) or the timer fires.
/// A close started by the peer is answered at once and ends in `closed` too. If the socket
/// closes first, call ``transportClosed()``.
///
/// **Driving it from an event loop** (server side; a client mirrors it with
/// ``WebSocketClientHandshake`` and ``HTTPResponseHead/parse(_:limits:)-(UnsafeRawBufferPointer,_)``):
/// ```swift
/// // 1. Handshake: accumulate bytes until the head is complete.
/// guard let (head, used) = try HTTPRequestHead.parse(inbox, limits: .default) else { return } // need more
/// do {
///     let accepted = try WebSocketServerHandshake.accept(head, configuration: serverConfig)
///     write(accepted.response.encoded())
///     machine = try WebSocketProtocolMachine(role: .server, compression: accepted.compression)
///     inbox.removeFirst(used)  // what follows the head is already WebSocket data: feed it below
/// } catch {
///     write(WebSocketServerHandshake.errorResponse(for: error).encoded()); close()
/// }
/// // 2. Every read:
/// var out: [UInt8] = []
/// do {
///     try machine.receive(readBuffer, output: &out) { event in deliver(event) }
/// } catch {
///     write(out); close(); return  // connection failed; out holds the close frame
/// }
/// write(out)
/// if machine.state == .closed { close() }
/// // 3. Sending: try machine.sendBinary(bytes, output: &out); write(out)
/// ```
///
/// Not thread-safe: one connection, one thread at a time.
public final class WebSocketProtocolMachine {
    /// Which end of the connection this machine is.
    public let role: WebSocketRole
    /// Limits and sending behaviour.
    public let configuration: WebSocketConfiguration
    /// The permessage-deflate settings agreed in the handshake, or `nil` for none.
    public let compression: PerMessageDeflateParameters?
    /// Where the connection stands in the close handshake.
    ///
    /// Read before every send; its exclusivity is unchecked because the dynamic check cost more
    /// than the read (the machine is used from one thread at a time, and only the machine writes it).
    @exclusivity(unchecked) public internal(set) var state: WebSocketConnectionState = .open
    /// The close frame this endpoint sent, once it has.
    public internal(set) var sentClose: WebSocketCloseFrame?
    /// The close frame the peer sent, once it arrived.
    public private(set) var receivedClose: WebSocketCloseFrame?

    var inbound: WebSocketInbound
    /// The payload bytes still to come before the frame being received ends, when that frame is
    /// final (see ``WebSocketInbound/bytesLeftInFinalFrame``); 0 otherwise.
    var bytesLeftInFinalFrame: Int { inbound.bytesLeftInFinalFrame }
    let codec: PerMessageDeflateCodec?
    let maskingKeys: () -> WebSocketMaskingKey

    /// Reused buffer for compressed outgoing messages.
    var compressionScratch: [UInt8] = []

    /// Whether ``receive(_:output:onEvent:)`` writes the pong for each ping into its `output`
    /// (the default). The I/O layer turns this off and answers ``WebSocketEvent/ping(_:)`` with
    /// ``sendPong(_:output:)`` into the buffer its handlers send into, so that pongs and the
    /// messages sent while handling the same bytes leave in the order of what caused them.
    var answersPings = true

    /// Creates the machine for an open connection.
    ///
    /// - Parameters:
    ///   - role: `.server` for an accepted connection, `.client` for one this endpoint opened.
    ///   - configuration: Limits and sending behaviour.
    ///   - compression: The permessage-deflate parameters agreed in the handshake, or `nil`.
    ///   - maskingKeys: Where a client's masking keys come from. By default each connection
    ///     draws them from its own ChaCha20 keystream keyed by `SystemRandomNumberGenerator`
    ///     (a CSPRNG without a system call per frame). Replace it only in tests.
    /// - Throws: ``WebSocketError/compressionSetupFailed(_:)`` if zlib refuses the agreed windows.
    public init(
        role: WebSocketRole, configuration: WebSocketConfiguration = WebSocketConfiguration(),
        compression: PerMessageDeflateParameters? = nil,
        maskingKeys: (() -> WebSocketMaskingKey)? = nil
    ) throws(WebSocketError) {
        self.role = role
        self.configuration = configuration
        self.compression = compression
        if let maskingKeys {
            self.maskingKeys = maskingKeys
        } else if role == .client {
            let stream = MaskingKeyStream()
            self.maskingKeys = { stream.next() }
        } else {
            self.maskingKeys = { WebSocketMaskingKey.random() }  // never called: servers do not mask
        }
        codec = try compression.map { parameters throws(WebSocketError) in
            try PerMessageDeflateCodec(parameters: parameters, role: role)
        }
        inbound = WebSocketInbound(role: role, limits: configuration.limits, allowsCompressedMessages: compression != nil)
    }

    /// Whether this endpoint has sent its close frame and waits for the peer's (state ``WebSocketConnectionState/closing``).
    public var isAwaitingCloseReply: Bool { state == .closing }

    /// Tells the machine that the socket closed; returns how the connection ended.
    ///
    /// - Returns: The peer's close frame if the close handshake finished, otherwise a frame
    ///   with code 1006 (abnormal closure), which is never sent on the wire.
    @discardableResult
    public func transportClosed() -> WebSocketCloseFrame {
        state = .closed
        if let receivedClose { return receivedClose }
        return WebSocketCloseFrame(code: .abnormalClosure, reason: "the connection closed without a close frame")
    }

    // MARK: Receiving

    /// Feeds received bytes, reporting complete messages and control events in order.
    ///
    /// Bytes may be split anywhere: partial frames are kept until the rest arrives. Once the
    /// state is ``WebSocketConnectionState/closed``, further bytes are ignored.
    ///
    /// - Parameters:
    ///   - bytes: The bytes read from the socket.
    ///   - output: Receives the bytes to write in reply (pongs, close reply, failing close frame).
    ///   - onEvent: Called for each event, in order, before `receive` returns. It may send
    ///     (``sendBinary(_:output:)-([UInt8],_)`` into another buffer) or ``close(code:reason:output:)``,
    ///     but must not call `receive` again.
    /// - Returns: How many of `bytes` it took: all of them, unless inflation stopped at the
    ///   ``inflationBudget`` (``isInflationSuspended``); then pass the rest, with a new budget,
    ///   to a later call.
    /// - Throws: ``WebSocketError`` when the peer broke the protocol or a limit; the failing
    ///   close frame is already in `output` and the state is `closed`.
    @discardableResult
    public func receive(
        _ bytes: UnsafeRawBufferPointer, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void
    ) throws(WebSocketError) -> Int {
        guard state != .closed else { return bytes.count }
        // Borrow the receive state for the whole call (see WebSocketInbound); `receive` must not
        // be re-entered from `onEvent`.
        var inbound = WebSocketInbound.placeholder
        swap(&inbound, &self.inbound)
        defer { swap(&inbound, &self.inbound) }
        let codec = self.codec
        var index = 0
        do throws(WebSocketError) {
            if inbound.isInflationSuspended {
                try inbound.resumeInflation(codec: codec)
                if inbound.isInflationSuspended { return 0 }
            }
            while true {
                if let message = inbound.wholeMessageFrame(in: bytes, at: &index) {
                    onEvent(message)
                    inbound.recycle(message)
                    continue
                }
                guard let element = try inbound.decoder.next(in: bytes, at: &index) else { break }
                switch element {
                case .header(let header):
                    try inbound.beginFrame(header)
                case .payload(let range, let payloadOffset):
                    try inbound.appendPayload(UnsafeRawBufferPointer(rebasing: bytes[range]), payloadOffset: payloadOffset, codec: codec)
                    if inbound.isInflationSuspended { return index }
                case .end:
                    guard let completion = try inbound.endFrame(codec: codec) else { continue }
                    switch completion {
                    case .message(let event):
                        onEvent(event)
                        inbound.recycle(event)
                    case .ping(let payload):
                        if state == .open && answersPings {
                            payload.withUnsafeBytes { writeFrame(opcode: .pong, fin: true, rsv1: false, payload: $0, output: &output) }
                        }
                        onEvent(.ping(payload))
                    case .pong(let payload):
                        onEvent(.pong(payload))
                    case .close(let payload):
                        try handleClose(payload, output: &output, onEvent: onEvent)
                        return bytes.count
                    }
                }
            }
        } catch {
            inbound.discardMessage()
            failConnection(error, output: &output)
            throw error
        }
        return bytes.count
    }

    /// The most bytes the machine inflates from compressed messages before ``receive(_:output:onEvent:)``
    /// stops early; each inflated byte uses one up. `Int.max` (default): never stop.
    ///
    /// An I/O layer serving many connections on one thread refills it every turn, so that a
    /// message inflating toward the message limit (a deflate bomb) takes its own connection
    /// many turns rather than every connection one long one.
    public var inflationBudget: Int {
        get { inbound.inflationBudget }
        set { inbound.inflationBudget = newValue }
    }

    /// Whether inflation stopped at ``inflationBudget`` with more of a message to inflate: the
    /// next ``receive(_:output:onEvent:)`` (with no new bytes, if need be) goes on with it first.
    public var isInflationSuspended: Bool { inbound.isInflationSuspended }

    /// Feeds received bytes and returns the events they complete.
    ///
    /// - Parameters:
    ///   - bytes: The bytes read from the socket.
    ///   - output: Receives the bytes to write in reply.
    /// - Returns: The events, in order.
    /// - Throws: ``WebSocketError`` as ``receive(_:output:onEvent:)`` does.
    public func receive(_ bytes: [UInt8], output: inout [UInt8]) throws(WebSocketError) -> [WebSocketEvent] {
        var events: [WebSocketEvent] = []
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) in
                try receive(buffer, output: &output) { events.append($0) }
            }
        }
        _ = try result.get()
        return events
    }

    func handleClose(_ payload: [UInt8], output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) throws(WebSocketError) {
        let frame = try Self.parseClosePayload(payload)
        receivedClose = frame
        if state == .open {
            // Echo the peer's code, as RFC 6455 section 5.5.1 suggests; an empty close gets an empty reply.
            var reply: [UInt8] = []
            if let code = frame.code {
                reply = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
            }
            reply.withUnsafeBytes { writeFrame(opcode: .close, fin: true, rsv1: false, payload: $0, output: &output) }
            sentClose = WebSocketCloseFrame(code: frame.code)
        }
        state = .closed
        onEvent(.close(frame))
    }

    /// Parses and validates a received close payload: empty, or a valid code and UTF-8 reason.
    ///
    /// - Parameter payload: The unmasked close frame payload.
    /// - Returns: The close frame's content.
    /// - Throws: ``WebSocketError/invalidCloseFrameLength`` for one byte,
    ///   ``WebSocketError/invalidCloseCode(_:)`` for a code not allowed on the wire,
    ///   ``WebSocketError/invalidUTF8`` for a reason that is not UTF-8.
    public static func parseClosePayload(_ payload: [UInt8]) throws(WebSocketError) -> WebSocketCloseFrame {
        if payload.isEmpty { return WebSocketCloseFrame(code: nil) }
        guard payload.count >= 2 else { throw .invalidCloseFrameLength }
        let raw = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.isValidOnWire(raw), let code = WebSocketCloseCode(rawValue: raw) else {
            throw .invalidCloseCode(raw)
        }
        let reason = payload[2...]
        let valid = reason.withUnsafeBytes { UTF8Validator.isValid($0) }
        guard valid else { throw .invalidUTF8 }
        return WebSocketCloseFrame(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    /// Fails the connection: writes a close frame with the error's code (unless one was sent) and closes.
    func failConnection(_ error: WebSocketError, output: inout [UInt8]) {
        if sentClose == nil {
            let code = error.closeCode
            let payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
            payload.withUnsafeBytes { writeFrame(opcode: .close, fin: true, rsv1: false, payload: $0, output: &output) }
            sentClose = WebSocketCloseFrame(code: code)
        }
        state = .closed
    }
}

@available(*, unavailable, message: "A WebSocketProtocolMachine holds one connection's mutable state; use it from one thread at a time.")
extension WebSocketProtocolMachine: Sendable {}
