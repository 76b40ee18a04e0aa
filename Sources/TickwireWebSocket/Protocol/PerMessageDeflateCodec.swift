import TickwireZlib

/// The zlib streams of one connection's permessage-deflate (RFC 7692): a deflater for
/// what this endpoint sends, an inflater for what it receives, and the context-takeover
/// rules agreed in the handshake.
///
/// Not thread-safe: it belongs to one ``WebSocketProtocolMachine``.
final class PerMessageDeflateCodec {
    /// The four bytes a sync flush ends with; removed from sent messages, restored before inflating.
    static let syncFlushTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    let deflater: Deflater
    let inflater: Inflater
    let resetsDeflaterAfterEachMessage: Bool
    let resetsInflaterAfterEachMessage: Bool

    /// Sets up the streams for `role` under the agreed `parameters`.
    ///
    /// - Throws: ``WebSocketError/compressionSetupFailed(_:)`` if zlib refuses the windows.
    init(parameters: PerMessageDeflateParameters, role: WebSocketRole) throws(WebSocketError) {
        let sendBits = role == .server ? parameters.serverMaxWindowBits : parameters.clientMaxWindowBits
        let receiveBits = role == .server ? parameters.clientMaxWindowBits : parameters.serverMaxWindowBits
        do throws(ZlibError) {
            // zlib cannot deflate with a 256-byte window (8 bits); the handshake never agrees to that
            // for our side. Inflating with a window larger than the sender's is always correct.
            deflater = try Deflater(
                format: .raw, level: parameters.compressionLevel,
                windowBits: max(9, sendBits), memoryLevel: parameters.memoryLevel)
            inflater = try Inflater(format: .raw, windowBits: max(9, receiveBits))
        } catch {
            throw .compressionSetupFailed(error.description)
        }
        resetsDeflaterAfterEachMessage = role == .server ? parameters.serverNoContextTakeover : parameters.clientNoContextTakeover
        resetsInflaterAfterEachMessage = role == .server ? parameters.clientNoContextTakeover : parameters.serverNoContextTakeover
    }

    /// Compresses one message and appends it to `output` without the trailing `00 00 FF FF`.
    func compress(_ message: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) {
        let start = output.count
        deflater.compress(message, flush: .sync, appendingTo: &output)
        // A sync flush always ends with the empty stored block 00 00 FF FF (RFC 7692 section 7.2.1).
        let end = output.count
        if end - start >= 4, output[end - 4] == 0x00, output[end - 3] == 0x00, output[end - 2] == 0xFF, output[end - 1] == 0xFF {
            output.removeLast(4)
        }
        // zlib writes nothing for an empty message right after a flush (Z_BUF_ERROR, no progress),
        // and the tail alone does not inflate: send one 0x00, an empty stored block's first byte
        // (RFC 7692 section 7.2.3.6).
        if output.count == start { output.append(0x00) }
        if resetsDeflaterAfterEachMessage { deflater.reset() }
    }

    /// Inflates the next piece of a compressed message as it arrives, appending to `message`.
    ///
    /// Inflating frame by frame (rather than once the message is whole) lets the receiver
    /// validate compressed text as it arrives and stop a deflate bomb at the first frame
    /// that crosses the limit, without holding the compressed bytes.
    ///
    /// - Parameters:
    ///   - piece: Compressed bytes, unmasked.
    ///   - message: The message inflated so far; the new output is appended.
    ///   - maximumBytes: The message size limit; `message` may not grow past it.
    /// - Throws: ``WebSocketError/inflatedMessageTooLarge(_:)`` past the limit,
    ///   ``WebSocketError/corruptCompressedData(_:)`` for data that does not inflate.
    func inflate(_ piece: UnsafeRawBufferPointer, into message: inout [UInt8], maximumBytes: Int) throws(WebSocketError) {
        // Only the size limit guards here: a legitimate message may compress close to deflate's
        // maximum ratio (long runs), and the size limit alone already bounds a bomb.
        let limit = InflationLimit(maximumBytes: max(0, maximumBytes - message.count), maximumRatio: .max, ratioAllowanceBytes: .max)
        do throws(ZlibError) {
            try inflater.inflate(piece, limit: limit, appendingTo: &message)
        } catch {
            if error.isLimitExceeded { throw .inflatedMessageTooLarge(error.description) }
            throw .corruptCompressedData(error.description)
        }
    }

    /// Inflates at most `stepBytes` of the next piece of a compressed message, appending to
    /// `message` (see ``inflate(_:into:maximumBytes:)``).
    ///
    /// - Parameters:
    ///   - piece: Compressed bytes, unmasked.
    ///   - message: The message inflated so far; the new output is appended.
    ///   - maximumBytes: The message size limit; `message` may not grow past it.
    ///   - stepBytes: The most output this step writes.
    /// - Returns: How much of `piece` the step consumed and whether it stopped at `stepBytes`.
    /// - Throws: As ``inflate(_:into:maximumBytes:)``.
    func inflate(
        _ piece: UnsafeRawBufferPointer, into message: inout [UInt8], maximumBytes: Int, stepBytes: Int
    ) throws(WebSocketError) -> InflationStep {
        let limit = InflationLimit(maximumBytes: max(0, maximumBytes - message.count), maximumRatio: .max, ratioAllowanceBytes: .max)
        do throws(ZlibError) {
            return try inflater.inflateStep(piece, limit: limit, stepBytes: stepBytes, appendingTo: &message)
        } catch {
            if error.isLimitExceeded { throw .inflatedMessageTooLarge(error.description) }
            throw .corruptCompressedData(error.description)
        }
    }

    /// Ends a compressed message: inflates the sync-flush tail the sender removed and, without
    /// context takeover, resets the history.
    ///
    /// - Parameters:
    ///   - message: The message inflated so far.
    ///   - maximumBytes: The message size limit.
    /// - Throws: As ``inflate(_:into:maximumBytes:)``.
    func finishMessage(into message: inout [UInt8], maximumBytes: Int) throws(WebSocketError) {
        let result = Self.syncFlushTail.withUnsafeBytes { tail in
            Result { () throws(WebSocketError) in try inflate(tail, into: &message, maximumBytes: maximumBytes) }
        }
        try result.get()
        if resetsInflaterAfterEachMessage { inflater.reset() }
    }
}

@available(*, unavailable, message: "Owns zlib streams; use it from one thread at a time.")
extension PerMessageDeflateCodec: Sendable {}
