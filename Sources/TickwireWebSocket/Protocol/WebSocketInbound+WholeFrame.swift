extension WebSocketInbound {
    /// Decodes a whole message in one step when `bytes` holds, from `index`, a complete frame
    /// that is a message on its own: final, uncompressed, text or binary, correctly masked for
    /// the role, within the frame and message limits (and, for text, valid UTF-8).
    ///
    /// This is the common case of a game or chat connection (small messages, several per read),
    /// and it skips the general decoder's per-byte states, its elements and the reassembly
    /// buffer. Anything else, including every frame the general path would refuse, returns
    /// `nil` with `index` unchanged, and the general path decodes it (and throws its error). So
    /// this only ever accepts what the general path accepts, with the same result; the tests
    /// check that by decoding the same bytes both ways.
    ///
    /// - Parameters:
    ///   - bytes: The received bytes.
    ///   - index: Where the next frame starts; advanced past the frame when one is decoded.
    /// - Returns: The message, or `nil` to leave these bytes to the general path.
    mutating func wholeMessageFrame(in bytes: UnsafeRawBufferPointer, at index: inout Int) -> WebSocketEvent? {
        guard messageOpcode == nil, decoder.isAtFrameBoundary, let base = bytes.baseAddress else { return nil }
        let available = bytes.count &- index
        guard available >= 2 else { return nil }
        let first = base.load(fromByteOffset: index, as: UInt8.self)
        let second = base.load(fromByteOffset: index &+ 1, as: UInt8.self)
        // FIN set, RSV1-3 clear, opcode text (1) or binary (2).
        guard first == 0x81 || first == 0x82 else { return nil }
        let isMasked = second & 0x80 != 0
        guard isMasked == (decoder.role == .server) else { return nil }
        var headerSize = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length =
                Int(base.load(fromByteOffset: index &+ 2, as: UInt8.self)) << 8
                | Int(base.load(fromByteOffset: index &+ 3, as: UInt8.self))
            headerSize = 4
        } else if length == 127 {
            return nil  // 64 KiB and up: the copy dominates, and the general path handles the 64-bit form
        }
        guard length <= decoder.maximumFramePayloadBytes, length <= maximumMessageBytes else { return nil }
        let keyOffset = index &+ headerSize
        let payloadOffset = keyOffset &+ (isMasked ? 4 : 0)
        guard bytes.count &- payloadOffset >= length else { return nil }

        let payload = UnsafeRawBufferPointer(start: base + payloadOffset, count: length)
        var message = takeSpare(for: length)
        if isMasked {
            let key = WebSocketMaskingKey(
                word: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: keyOffset, as: UInt32.self)))
            message.append(contentsOf: key.applied(to: payload))  // unmasked as it is copied: one pass
        } else {
            message.append(contentsOf: payload.assumingMemoryBound(to: UInt8.self))
        }
        if first == 0x81 {
            let isValid = message.withUnsafeBytes { UTF8Validator.isValid($0) }
            defer { keepSpare(&message) }  // the text is a copy: the bytes are free again at once
            guard isValid else { return nil }
            index = payloadOffset &+ length
            return .text(String(decoding: message, as: UTF8.self))
        }
        index = payloadOffset &+ length
        return .binary(message)
    }

    /// Takes back a message once the receiver has seen it, so that the next message reuses its
    /// storage rather than allocating.
    ///
    /// When the receiver kept the bytes, emptying them here allocates a fresh buffer instead
    /// (copy-on-write), so what the receiver holds is never touched.
    ///
    /// - Parameter event: The message event just delivered.
    mutating func recycle(_ event: consuming WebSocketEvent) {
        guard case .binary(var bytes) = consume event else { return }
        keepSpare(&bytes)
    }

    /// The spare storage when it suits a message of `count` bytes, else an empty array.
    ///
    /// It must hold `count` bytes and not be much larger: the receiver may keep the message, and
    /// a 64-byte message should not keep 64 KiB alive.
    mutating func takeSpare(for count: Int) -> [UInt8] {
        let capacity = spareMessage.capacity
        guard capacity >= count, capacity <= max(2 * count, 256) else { return [] }
        var spare: [UInt8] = []
        swap(&spare, &spareMessage)
        return spare
    }

    /// Keeps `bytes`' storage, emptied, for the next message, unless it is over ``spareCapacityLimit``.
    mutating func keepSpare(_ bytes: inout [UInt8]) {
        guard bytes.capacity <= spareCapacityLimit, bytes.capacity > spareMessage.capacity else { return }
        bytes.removeAll(keepingCapacity: true)
        swap(&bytes, &spareMessage)
    }
}
