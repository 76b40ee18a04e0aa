/// The fixed part of a WebSocket frame: flags, opcode, payload length and masking key
/// (RFC 6455 section 5.2).
package struct WebSocketFrameHeader: Hashable, Sendable {
    /// Whether this is the final frame of its message.
    package var fin: Bool
    /// The RSV1 bit; permessage-deflate uses it to flag a compressed message.
    package var rsv1: Bool
    /// The RSV2 bit; no extension Tickwire supports defines it.
    package var rsv2: Bool
    /// The RSV3 bit; no extension Tickwire supports defines it.
    package var rsv3: Bool
    /// The frame's opcode.
    package var opcode: WebSocketOpcode
    /// The payload length in bytes.
    package var payloadLength: Int
    /// The masking key, present on every client-to-server frame.
    package var maskingKey: WebSocketMaskingKey?

    /// Creates a header.
    ///
    /// - Parameters:
    ///   - fin: Whether this is the final frame of its message.
    ///   - rsv1: The RSV1 bit.
    ///   - rsv2: The RSV2 bit.
    ///   - rsv3: The RSV3 bit.
    ///   - opcode: The frame's opcode.
    ///   - payloadLength: The payload length in bytes.
    ///   - maskingKey: The masking key, or `nil` for an unmasked frame.
    package init(
        fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
        opcode: WebSocketOpcode, payloadLength: Int, maskingKey: WebSocketMaskingKey? = nil
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.payloadLength = payloadLength
        self.maskingKey = maskingKey
    }

    /// The size of this header on the wire: 2 bytes, plus 2 or 8 for an extended length, plus 4 for a mask.
    package var encodedSize: Int {
        let lengthBytes = payloadLength <= 125 ? 0 : (payloadLength <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (maskingKey == nil ? 0 : 4)
    }

    /// Appends this header in its wire form, with the shortest length encoding.
    ///
    /// An unmasked two-byte header (payload up to 125 bytes) is appended byte by byte; longer
    /// ones are put together in a local buffer and appended at once (measured with perf).
    ///
    /// - Parameter output: Receives the header bytes after its current contents.
    @inlinable
    package func encode(into output: inout [UInt8]) {
        var first = opcode.rawValue
        if fin { first |= 0x80 }
        if rsv1 { first |= 0x40 }
        if rsv2 { first |= 0x20 }
        if rsv3 { first |= 0x10 }
        if maskingKey == nil && payloadLength <= 125 {
            // A server's small frame, the most common header.
            output.append(first)
            output.append(UInt8(truncatingIfNeeded: payloadLength))
            return
        }
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        var bytes: (UInt64, UInt64) = (0, 0)  // room for the longest header, 14 bytes
        withUnsafeMutableBytes(of: &bytes) { header in
            header[0] = first
            var count = 2
            if payloadLength <= 125 {
                header[1] = maskBit | UInt8(payloadLength)
            } else if payloadLength <= 0xFFFF {
                header[1] = maskBit | 126
                header[2] = UInt8(truncatingIfNeeded: payloadLength >> 8)
                header[3] = UInt8(truncatingIfNeeded: payloadLength)
                count = 4
            } else {
                header[1] = maskBit | 127
                let length = UInt64(payloadLength)
                for index in 0..<8 {
                    header[2 + index] = UInt8(truncatingIfNeeded: length >> UInt64(56 - 8 * index))
                }
                count = 10
            }
            if let key = maskingKey {
                header[count] = key.bytes.0
                header[count + 1] = key.bytes.1
                header[count + 2] = key.bytes.2
                header[count + 3] = key.bytes.3
                count += 4
            }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: header[..<count]))
        }
    }
}

/// A whole WebSocket frame: header and (unmasked) payload.
///
/// The ``WebSocketProtocolMachine`` does not build these on its hot path; they serve tests,
/// tools and anyone who wants frames rather than messages (see ``WebSocketFrameDecoder``).
package struct WebSocketFrame: Hashable, Sendable {
    /// The frame's opcode type, a `struct` with `static let` members.
    package typealias Opcode = WebSocketOpcode

    /// The frame's header; its `payloadLength` always equals `payload.count`.
    package private(set) var header: WebSocketFrameHeader
    /// The payload, unmasked.
    package var payload: [UInt8] {
        didSet { header.payloadLength = payload.count }
    }

    /// Creates a frame.
    ///
    /// - Parameters:
    ///   - fin: Whether this is the final frame of its message.
    ///   - rsv1: The RSV1 bit (compressed message with permessage-deflate).
    ///   - opcode: The frame's opcode.
    ///   - payload: The unmasked payload.
    ///   - maskingKey: The key to mask the payload with on the wire, or `nil`.
    package init(
        fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payload: [UInt8],
        maskingKey: WebSocketMaskingKey? = nil
    ) {
        header = WebSocketFrameHeader(fin: fin, rsv1: rsv1, opcode: opcode, payloadLength: payload.count, maskingKey: maskingKey)
        self.payload = payload
    }

    /// Creates a frame from a decoded header and its unmasked payload.
    ///
    /// - Parameters:
    ///   - header: The header; its length is replaced by `payload.count`.
    ///   - payload: The unmasked payload.
    package init(header: WebSocketFrameHeader, payload: [UInt8]) {
        self.header = header
        self.header.payloadLength = payload.count
        self.payload = payload
    }

    /// Whether this is the final frame of its message.
    package var fin: Bool { header.fin }
    /// The frame's opcode.
    package var opcode: WebSocketOpcode { header.opcode }
    /// The masking key, if the frame is masked.
    package var maskingKey: WebSocketMaskingKey? { header.maskingKey }

    /// Appends the frame in its wire form, masking the payload if the frame has a key.
    ///
    /// - Parameter output: Receives the frame bytes after its current contents.
    package func encode(into output: inout [UInt8]) {
        payload.withUnsafeBytes { WebSocketFrame.encode(header: header, payload: $0, into: &output) }
    }

    /// The frame in its wire form.
    ///
    /// - Returns: Header and (masked, if keyed) payload bytes.
    package func encoded() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(header.encodedSize + payload.count)
        encode(into: &output)
        return output
    }

    /// Appends a frame built from `header` and `payload` to `output`, masking the payload as it
    /// copies it when the header has a key. `header.payloadLength` must equal `payload.count`.
    ///
    /// - Parameters:
    ///   - header: The frame header.
    ///   - payload: The unmasked payload.
    ///   - output: Receives the frame bytes after its current contents.
    @inlinable
    package static func encode(header: WebSocketFrameHeader, payload: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        precondition(header.payloadLength == payload.count, "frame header length must match the payload")
        header.encode(into: &output)
        if let key = header.maskingKey {
            output.append(contentsOf: key.applied(to: payload))  // masked as it is copied: one pass
        } else {
            output.append(contentsOf: payload)
        }
    }
}
