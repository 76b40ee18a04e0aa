extension WebSocketProtocolMachine {
    /// Appends a text message's frames to `output`.
    ///
    /// The message is compressed when permessage-deflate was agreed and it is at least
    /// ``WebSocketConfiguration/minimumBytesToCompress`` long, and split into frames when
    /// ``WebSocketConfiguration/outgoingFragmentBytes`` is set. A client masks every frame
    /// with a fresh key.
    ///
    /// - Parameters:
    ///   - text: The message.
    ///   - output: Receives the frame bytes.
    /// - Throws: ``WebSocketError/connectionNotOpen`` once the close handshake has started.
    public func sendText(_ text: String, output: inout [UInt8]) throws(WebSocketError) {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(WebSocketError) in
                try sendMessage(.text, payload: UnsafeRawBufferPointer(utf8), output: &output)
            }
        }
        try result.get()
    }

    /// Appends a binary message's frames to `output` (see ``sendText(_:output:)``).
    ///
    /// - Parameters:
    ///   - payload: The message.
    ///   - output: Receives the frame bytes.
    /// - Throws: ``WebSocketError/connectionNotOpen`` once the close handshake has started.
    public func sendBinary(_ payload: UnsafeRawBufferPointer, output: inout [UInt8]) throws(WebSocketError) {
        try sendMessage(.binary, payload: payload, output: &output)
    }

    /// Appends a binary message's frames to `output` (see ``sendText(_:output:)``).
    ///
    /// - Parameters:
    ///   - payload: The message.
    ///   - output: Receives the frame bytes.
    /// - Throws: ``WebSocketError/connectionNotOpen`` once the close handshake has started.
    public func sendBinary(_ payload: [UInt8], output: inout [UInt8]) throws(WebSocketError) {
        let result = payload.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) in try sendMessage(.binary, payload: buffer, output: &output) }
        }
        try result.get()
    }

    /// Appends only the header of a binary message sent as one plain frame, for a caller that
    /// writes the payload itself: appended after it, or for a large one straight from where it is.
    ///
    /// Nothing is written, and the result is `false`, when the message would not go out as its
    /// payload unchanged: a client masks it, permessage-deflate compresses it, or
    /// ``WebSocketConfiguration/outgoingFragmentBytes`` splits it. Use ``sendBinary(_:output:)-(UnsafeRawBufferPointer,_)`` then.
    ///
    /// - Parameters:
    ///   - payloadCount: The message's length in bytes.
    ///   - output: Receives the frame header.
    /// - Returns: Whether the header was written, so that the payload must follow it unchanged.
    /// - Throws: ``WebSocketError/connectionNotOpen`` once the close handshake has started.
    public func sendBinaryHeader(payloadCount: Int, output: inout [UInt8]) throws(WebSocketError) -> Bool {
        guard state == .open else { throw .connectionNotOpen }
        guard role == .server, payloadCount <= configuration.outgoingFragmentBytes ?? Int.max,
            codec == nil || payloadCount < configuration.minimumBytesToCompress
        else { return false }
        WebSocketFrameHeader(opcode: .binary, payloadLength: payloadCount).encode(into: &output)
        return true
    }

    /// Appends a ping frame to `output`.
    ///
    /// - Parameters:
    ///   - payload: Up to 125 bytes the peer echoes in its pong (see ``WebSocketKeepalive``).
    ///   - output: Receives the frame bytes.
    /// - Throws: ``WebSocketError/controlPayloadTooLong(_:)`` over 125 bytes,
    ///   ``WebSocketError/connectionNotOpen`` once the close handshake has started.
    public func sendPing(_ payload: [UInt8] = [], output: inout [UInt8]) throws(WebSocketError) {
        guard state == .open else { throw .connectionNotOpen }
        let result = payload.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) in try writeControlFrame(.ping, payload: buffer, output: &output) }
        }
        try result.get()
    }

    /// Appends an unsolicited pong frame to `output` (a one-way heartbeat; pings are answered automatically).
    ///
    /// - Parameters:
    ///   - payload: Up to 125 bytes.
    ///   - output: Receives the frame bytes.
    /// - Throws: ``WebSocketError/controlPayloadTooLong(_:)`` over 125 bytes,
    ///   ``WebSocketError/connectionNotOpen`` once the close handshake has started.
    public func sendPong(_ payload: [UInt8] = [], output: inout [UInt8]) throws(WebSocketError) {
        guard state == .open else { throw .connectionNotOpen }
        let result = payload.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) in try writeControlFrame(.pong, payload: buffer, output: &output) }
        }
        try result.get()
    }

    /// Starts the close handshake: appends a close frame and moves to ``WebSocketConnectionState/closing``.
    ///
    /// Does nothing unless the state is ``WebSocketConnectionState/open``. The I/O layer
    /// should start its close timer when this returns `true`.
    ///
    /// - Parameters:
    ///   - code: The status code, or `nil` for a close frame with an empty body.
    ///   - reason: Up to 123 UTF-8 bytes of explanation (ignored when `code` is `nil`).
    ///   - output: Receives the frame bytes.
    /// - Returns: Whether a close frame was written.
    /// - Throws: ``WebSocketError/invalidCloseCodeToSend(_:)`` for 1005, 1006, 1015 or a
    ///   reserved code, ``WebSocketError/closeReasonTooLong(_:)`` for a reason over 123 bytes.
    @discardableResult
    public func close(
        code: WebSocketCloseCode? = .normalClosure, reason: String = "", output: inout [UInt8]
    ) throws(WebSocketError) -> Bool {
        var payload: [UInt8] = []
        if let code {
            guard code.isValidOnWire else { throw .invalidCloseCodeToSend(code.rawValue) }
            let reasonBytes = Array(reason.utf8)
            guard reasonBytes.count <= 123 else { throw .closeReasonTooLong(reasonBytes.count) }
            payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reasonBytes
        }
        guard state == .open else { return false }
        payload.withUnsafeBytes { writeFrame(opcode: .close, fin: true, rsv1: false, payload: $0, output: &output) }
        sentClose = WebSocketCloseFrame(code: code, reason: code == nil ? "" : reason)
        state = .closing
        return true
    }

    // MARK: Frame writing

    func sendMessage(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, output: inout [UInt8]) throws(WebSocketError) {
        guard state == .open else { throw .connectionNotOpen }
        if let codec, payload.count >= configuration.minimumBytesToCompress {
            var compressed = compressionScratch
            compressionScratch = []
            compressed.removeAll(keepingCapacity: true)
            codec.compress(payload, appendingTo: &compressed)
            compressed.withUnsafeBytes { writeFragments(opcode, payload: $0, compressed: true, output: &output) }
            compressionScratch = compressed.capacity <= 1 << 20 ? compressed : []
        } else {
            writeFragments(opcode, payload: payload, compressed: false, output: &output)
        }
    }

    func writeFragments(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, compressed: Bool, output: inout [UInt8]) {
        let fragment = configuration.outgoingFragmentBytes ?? Int.max
        if payload.count <= fragment {
            writeFrame(opcode: opcode, fin: true, rsv1: compressed, payload: payload, output: &output)
            return
        }
        var offset = 0
        while offset < payload.count {
            let end = min(payload.count, offset + fragment)
            writeFrame(
                opcode: offset == 0 ? opcode : .continuation, fin: end == payload.count,
                rsv1: compressed && offset == 0,  // RSV1 marks only a compressed message's first frame
                payload: UnsafeRawBufferPointer(rebasing: payload[offset..<end]), output: &output
            )
            offset = end
        }
    }

    func writeControlFrame(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, output: inout [UInt8]) throws(WebSocketError) {
        guard payload.count <= 125 else { throw .controlPayloadTooLong(payload.count) }
        writeFrame(opcode: opcode, fin: true, rsv1: false, payload: payload, output: &output)
    }

    /// Appends one frame, masked with a fresh key when this endpoint is a client.
    func writeFrame(opcode: WebSocketOpcode, fin: Bool, rsv1: Bool, payload: UnsafeRawBufferPointer, output: inout [UInt8]) {
        let header = WebSocketFrameHeader(
            fin: fin, rsv1: rsv1, opcode: opcode, payloadLength: payload.count,
            maskingKey: role == .client ? maskingKeys() : nil
        )
        let needed = output.count + header.encodedSize + payload.count
        // Grow geometrically: reserving exactly `needed` frame after frame would copy the buffer every time.
        if output.capacity < needed { output.reserveCapacity(max(needed, output.capacity * 2)) }
        WebSocketFrame.encode(header: header, payload: payload, into: &output)
    }
}
