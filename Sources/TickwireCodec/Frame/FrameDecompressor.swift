import TickwireZlib

/// Decodes frames from one connection and one direction, inflating compressed bodies within
/// the size and ratio limits of ``FrameLimits`` (`Protocol/PROTOCOL.md` sections 6 and 7.2).
///
/// The counterpart of the peer's ``FrameCompressor`` of the same ``CompressionMode``:
///
/// ```swift
/// let decompressor = try FrameDecompressor(mode: welcome.compression)
/// switch try decompressor.decode(bytes) {
/// case .snapshot(let snapshot): ...
/// default: ...
/// }
/// ```
///
/// In ``CompressionMode/streaming``, an error in the envelope or in inflation leaves the
/// history out of step with the peer's: the decompressor then refuses every later frame with
/// ``FrameError/compressionContextBroken`` (see ``isBroken``) and the connection must close.
/// An error in a message's fields, found after its body joined the history, does not break it.
///
/// Not thread-safe: use one decompressor from one thread at a time.
public final class FrameDecompressor {
    /// The bytes a sync flush ends with, which a streaming sender strips and the receiver restores.
    static let syncFlushTrailer: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    /// The most bytes one stored deflate block can hold.
    static let maximumStoredBlockBytes = 65_535

    /// How frame bodies are compressed.
    public let mode: CompressionMode
    /// The limits every frame must respect.
    public let limits: FrameLimits
    /// The zlib stream: made at once in streaming mode, at the first compressed frame in
    /// per-frame mode (a peer whose frames stay small never costs zlib's state).
    private var inflater: Inflater?
    /// Whether an earlier error broke the streaming history, so that no frame can be decoded.
    public private(set) var isBroken = false

    /// Creates a decompressor.
    ///
    /// - Parameters:
    ///   - mode: The connection's compression mode.
    ///   - limits: The limits every frame must respect.
    /// - Throws: ``FrameError/zlibSetup(_:)`` when zlib cannot allocate its state (streaming
    ///   mode; per-frame mode allocates at the first compressed frame and throws then).
    public convenience init(mode: CompressionMode = .none, limits: FrameLimits = .standard) throws(FrameError) {
        var inflater: Inflater?
        if mode == .streaming {
            do throws(ZlibError) {
                inflater = try Inflater(format: .raw, windowBits: 15)
            } catch {
                throw .zlibSetup(error)
            }
        }
        self.init(mode: mode, limits: limits, inflater: inflater)
    }

    private init(mode: CompressionMode, limits: FrameLimits, inflater: Inflater?) {
        self.mode = mode
        self.limits = limits
        self.inflater = inflater
    }

    /// Creates a ``CompressionMode/none`` decompressor, which cannot fail: it never sets up zlib.
    ///
    /// For the handshake, before a mode is agreed, and for connections that compress nothing.
    ///
    /// - Parameter limits: The limits every frame must respect.
    /// - Returns: A decompressor that refuses compressed frames.
    public static func uncompressed(limits: FrameLimits = .standard) -> FrameDecompressor {
        FrameDecompressor(mode: .none, limits: limits, inflater: nil)
    }

    /// The inflater for a compressed frame; per-frame mode makes it on first use.
    private func inflaterForFrame() throws(FrameError) -> Inflater? {
        if inflater == nil && mode == .perFrame {
            do throws(ZlibError) {
                inflater = try Inflater(format: .zlib, windowBits: 15)
            } catch {
                throw .zlibSetup(error)
            }
        }
        return inflater
    }

    /// Decodes one frame into a message.
    ///
    /// - Parameter bytes: One whole frame as received.
    /// - Returns: The message.
    /// - Throws: ``FrameError`` for a broken limit, a malformed envelope or body, or a body
    ///   that cannot be inflated.
    public func decode(_ bytes: [UInt8]) throws(FrameError) -> Message {
        let frame = try decompress(bytes)
        return try Message(type: frame.type, body: frame.body, limits: limits)
    }

    /// Opens one frame's envelope and inflates its body, without decoding the message.
    ///
    /// - Parameter bytes: One whole frame as received.
    /// - Returns: The frame with its body uncompressed (``Frame/isCompressed`` is `false`).
    /// - Throws: ``FrameError`` for a broken limit, a malformed envelope, or a body that cannot
    ///   be inflated.
    public func decompress(_ bytes: [UInt8]) throws(FrameError) -> Frame {
        if isBroken { throw .compressionContextBroken }
        let isStreaming = mode == .streaming
        do throws(FrameError) {
            let (type, isCompressed) = try Frame.parseEnvelope(bytes, limits: limits)
            let joinsHistory = isStreaming && !type.isHandshake
            let bodyCount = bytes.count - 1
            guard isCompressed else {
                if bodyCount > limits.maximumBodyBytes {
                    throw .bodyTooLarge(size: bodyCount, limit: limits.maximumBodyBytes)
                }
                if joinsHistory { try appendStored(bytes) }
                return Frame(type: type, body: Array(bytes[1...]))
            }
            guard !type.isHandshake, let inflater = try inflaterForFrame() else {
                throw .unexpectedCompression(type: type.rawValue, mode: mode.rawValue)
            }
            var input = Array(bytes[1...])
            if joinsHistory { input.append(contentsOf: Self.syncFlushTrailer) }
            var body: [UInt8] = []
            do throws(ZlibError) {
                try inflater.inflate(input, limit: limits.inflationLimit, requiresEnd: !joinsHistory, appendingTo: &body)
            } catch {
                // A per-frame stream is independent of the next one: start afresh.
                if !joinsHistory { inflater.reset() }
                throw .inflation(error)
            }
            // A conforming sender never ends its stream (6.3): a final block, whatever it inflated
            // to, or nothing out at all (the stream ended in an earlier frame) is refused.
            if joinsHistory && (body.isEmpty || inflater.hasEnded) { throw .compressionStreamEnded }
            return Frame(type: type, body: body)
        } catch {
            // Whatever the peer meant by this frame, its history and ours may now differ.
            if isStreaming { isBroken = true }
            throw error
        }
    }

    /// Adds an uncompressed frame's body to the streaming history, as the sender's deflater
    /// already holds it: the body wrapped in non-final stored deflate blocks.
    private func appendStored(_ frame: [UInt8]) throws(FrameError) {
        let bodyCount = frame.count - 1
        guard let inflater, bodyCount > 0 else { return }
        let blockCount = (bodyCount + Self.maximumStoredBlockBytes - 1) / Self.maximumStoredBlockBytes
        var blocks: [UInt8] = []
        blocks.reserveCapacity(bodyCount + 5 * blockCount)
        var start = 1
        while start < frame.count {
            let end = min(start + Self.maximumStoredBlockBytes, frame.count)
            let length = UInt16(end - start)
            // Header byte 0x00: BFINAL = 0, BTYPE = 00 (stored), then padding to the byte
            // boundary; LEN and its one's complement NLEN, little-endian (RFC 1951 3.2.4).
            blocks.append(0x00)
            blocks.append(UInt8(truncatingIfNeeded: length))
            blocks.append(UInt8(truncatingIfNeeded: length >> 8))
            blocks.append(UInt8(truncatingIfNeeded: ~length))
            blocks.append(UInt8(truncatingIfNeeded: ~length >> 8))
            blocks.append(contentsOf: frame[start..<end])
            start = end
        }
        // Stored data inflates one to one, so the ratio cap cannot apply; only the size cap.
        let limit = InflationLimit(maximumBytes: bodyCount, maximumRatio: .max, ratioAllowanceBytes: bodyCount)
        var output: [UInt8] = []
        output.reserveCapacity(bodyCount)
        do throws(ZlibError) {
            try inflater.inflate(blocks, limit: limit, appendingTo: &output)
        } catch {
            throw .inflation(error)
        }
        if output.count != bodyCount { throw .compressionStreamEnded }
    }
}

@available(*, unavailable, message: "A FrameDecompressor owns a zlib stream; use it from one thread at a time.")
extension FrameDecompressor: Sendable {}
