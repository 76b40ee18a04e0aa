import TickwireZlib

/// Encodes messages into frames for one connection and one direction, compressing each body
/// when that makes it smaller (`Protocol/PROTOCOL.md` section 6).
///
/// The compressor is the only place that decides whether a frame is compressed; callers hand it
/// every message and send what it returns. Its decision, per frame:
/// - handshake messages (hello, welcome, reject) and empty bodies: never compressed;
/// - ``CompressionMode/none``: never compressed;
/// - ``CompressionMode/streaming``: every other body is deflated into the connection's history
///   and sent compressed when that is shorter (and within the receiver's ratio cap);
/// - ``CompressionMode/perFrame``: a body shorter than ``smallestDeflatedBodyBytes`` is sent as
///   it is without a deflate call (a zlib stream's own 6 bytes of header and trailer leave a
///   short body nothing to gain); a longer one is deflated and sent compressed when that is
///   shorter. When deflating saved less than 10% of a frame, the next ``probeInterval`` frames
///   go as they are, then deflate is tried again: each per-frame frame stands alone, so the
///   protocol allows any frame to go uncompressed, and deflate is most of a host's cost per
///   client.
///
/// Use one compressor per connection, paired with the peer's ``FrameDecompressor`` of the same
/// ``CompressionMode``. The handshake runs before the mode is agreed and is never compressed,
/// so a session typically encodes the hello or welcome with an ``uncompressed(limits:)``
/// compressor (which cannot fail), then makes the negotiated one:
///
/// ```swift
/// let compressor = try FrameCompressor(mode: welcome.compression)
/// let bytes = try compressor.encode(.snapshot(.init(tick: 120, baselineTick: 118,
///     lastProcessedInput: 57, serverTime: 2_000_000, delta: delta)))
/// ```
///
/// In ``CompressionMode/streaming`` every non-handshake frame joins the connection's deflate
/// history, compressed or not; so every frame encoded must be sent, in order, over a reliable
/// transport: drop a message (to shed load) *before* encoding it, never after (see
/// ``joinsHistory(_:)``; a frame that joined the history and could not be sent leaves the
/// connection unusable, and it must close). After an error thrown *before* compression (a field
/// over its limit) the compressor is unchanged.
///
/// Not thread-safe: use one compressor from one thread at a time.
public final class FrameCompressor {
    /// In ``CompressionMode/perFrame``, bodies shorter than this many bytes are sent
    /// uncompressed without trying deflate.
    ///
    /// 64: a zlib stream adds 6 bytes of its own plus deflate's block overhead, so deflate
    /// seldom shrinks a shorter body (inputs, pings, pongs, stats, small deltas). The protocol
    /// vector `frame-perframe-snapshot.hex` (a 72-byte body) stays compressed.
    public static let smallestDeflatedBodyBytes = 64
    /// In ``CompressionMode/perFrame``, after a frame that deflate made less than 10% smaller,
    /// this many frames go uncompressed before deflate is tried again.
    public static let probeInterval = 32

    /// How frame bodies are compressed.
    public let mode: CompressionMode
    /// The limits every encoded frame respects, so that a peer with these limits accepts it.
    public let limits: FrameLimits
    /// The zlib stream: made at once in streaming mode (its history starts with the first
    /// frame), at the first frame worth deflating in per-frame mode, so a connection whose
    /// frames stay small never pays for zlib's state (tens of KiB).
    private var deflater: Deflater?
    private let level: Int
    private let windowBits: Int
    private let memoryLevel: Int
    /// Per-frame mode: whether the last deflated frame came out at least 10% smaller.
    private var compressionPays = true
    /// Per-frame mode: frames still to send uncompressed before deflate is tried again.
    private var framesUntilProbe = 0

    /// The number of frames encoded.
    public private(set) var frameCount = 0
    /// The number of those frames sent with the compressed flag set.
    public private(set) var compressedFrameCount = 0
    /// The total size of the uncompressed frames (type byte and body) encoded so far.
    public private(set) var uncompressedByteCount = 0
    /// The total size of the frames as encoded (what went on the wire) so far.
    public private(set) var encodedByteCount = 0

    /// Creates a compressor.
    ///
    /// - Parameters:
    ///   - mode: The connection's compression mode.
    ///   - level: zlib level, 0...9 (6 is zlib's default, 1 the fastest).
    ///   - windowBits: The deflate window, 9...15 bits; smaller saves memory per connection
    ///     (zlib uses about `2^(windowBits+2)` bytes plus `2^(memoryLevel+9)`: 256 KiB with the
    ///     defaults). A receiver always inflates with a 15-bit window, so any value works with
    ///     any peer. A server with many clients may prefer `windowBits: 10, memoryLevel: 3`
    ///     (about 8 KiB): on small snapshot frames it compressed as well in our measurement.
    ///   - memoryLevel: zlib's `memLevel`, 1...9.
    ///   - limits: The limits encoded frames must respect.
    /// - Throws: ``FrameError/zlibSetup(_:)`` wrapping the ``ZlibError`` when zlib refuses the
    ///   settings (a level or window outside its range) or cannot allocate its state.
    public convenience init(
        mode: CompressionMode = .none, level: Int = 6, windowBits: Int = 15, memoryLevel: Int = 8,
        limits: FrameLimits = .standard
    ) throws(FrameError) {
        // The settings are checked now in every mode, though per-frame mode makes its stream later.
        guard (9...15).contains(windowBits) else { throw .zlibSetup(.invalidWindowBits(windowBits)) }
        guard (0...9).contains(level) else { throw .zlibSetup(.invalidLevel(level)) }
        var deflater: Deflater?
        if mode == .streaming {
            do throws(ZlibError) {
                deflater = try Deflater(format: .raw, level: level, windowBits: windowBits, memoryLevel: memoryLevel)
            } catch {
                throw .zlibSetup(error)
            }
        }
        self.init(mode: mode, level: level, windowBits: windowBits, memoryLevel: memoryLevel, limits: limits, deflater: deflater)
    }

    private init(mode: CompressionMode, level: Int, windowBits: Int, memoryLevel: Int, limits: FrameLimits, deflater: Deflater?) {
        self.mode = mode
        self.limits = limits
        self.level = level
        self.windowBits = windowBits
        self.memoryLevel = memoryLevel
        self.deflater = deflater
    }

    /// Creates a ``CompressionMode/none`` compressor, which cannot fail: it never sets up zlib.
    ///
    /// For the handshake, before a mode is agreed, and for connections that compress nothing.
    ///
    /// - Parameter limits: The limits encoded frames must respect.
    /// - Returns: A compressor that sends every body as it is.
    public static func uncompressed(limits: FrameLimits = .standard) -> FrameCompressor {
        FrameCompressor(mode: .none, level: 6, windowBits: 15, memoryLevel: 8, limits: limits, deflater: nil)
    }

    /// Whether a frame of `type` joins this connection's deflate history when encoded, so that
    /// it must then reach the peer: every non-handshake frame in streaming mode.
    ///
    /// - Parameter type: The message type.
    /// - Returns: `true` when dropping the encoded frame would break the peer's inflate history.
    public func joinsHistory(_ type: MessageType) -> Bool {
        mode == .streaming && !type.isHandshake
    }

    /// Whether to try deflate on a non-handshake, non-empty body: always in streaming mode
    /// (the history must hold every body), by size and recent results in per-frame mode.
    private func triesDeflate(bodyCount: Int) -> Bool {
        switch mode {
        case .streaming:
            return true
        case .perFrame:
            if !compressionPays && framesUntilProbe > 0 {
                framesUntilProbe -= 1
                return false
            }
            return bodyCount >= Self.smallestDeflatedBodyBytes
        default:
            return false
        }
    }

    /// The deflater for this frame: per-frame mode makes it on first use, and sends frames
    /// uncompressed (which it may) if zlib cannot allocate it.
    private func deflaterForFrame() -> Deflater? {
        if deflater == nil && mode == .perFrame {
            deflater = try? Deflater(format: .zlib, level: level, windowBits: windowBits, memoryLevel: memoryLevel)
        }
        return deflater
    }

    /// Encodes a message into a frame, compressed when that makes it smaller (see the type's
    /// description for when deflate is tried at all).
    ///
    /// - Parameter message: The message.
    /// - Returns: The frame's bytes, ready to send.
    /// - Throws: ``FrameError`` when a field is over its limit or the body is too large for a
    ///   frame; nothing is then added to a streaming history.
    public func encode(_ message: Message) throws(FrameError) -> [UInt8] {
        try compress(type: message.type, body: message.encodeBody(limits: limits))
    }

    /// Wraps an already encoded body in a frame, compressing it when that makes it smaller.
    ///
    /// - Parameters:
    ///   - type: The message type (not 0).
    ///   - body: The uncompressed body.
    /// - Returns: The frame's bytes, ready to send.
    /// - Throws: ``FrameError/reservedMessageType(_:)`` for type 0,
    ///   ``FrameError/bodyTooLarge(size:limit:)`` or ``FrameError/frameTooLarge(size:limit:)``
    ///   when even the uncompressed frame would break a limit.
    public func compress(type: MessageType, body: [UInt8]) throws(FrameError) -> [UInt8] {
        if type.rawValue == 0 { throw .reservedMessageType(0) }
        if body.count > limits.maximumBodyBytes {
            throw .bodyTooLarge(size: body.count, limit: limits.maximumBodyBytes)
        }
        // Checked on the uncompressed size, before deflating, so the result never depends on
        // how well the body compresses and a refused frame never enters a streaming history.
        if body.count + 1 > limits.maximumFrameBytes {
            throw .frameTooLarge(size: body.count + 1, limit: limits.maximumFrameBytes)
        }
        frameCount += 1
        uncompressedByteCount += body.count + 1
        var frame: [UInt8] = []
        if !type.isHandshake, !body.isEmpty, triesDeflate(bodyCount: body.count), let deflater = deflaterForFrame() {
            frame.reserveCapacity(body.count / 2 + 16)
            frame.append(type.rawValue | Frame.compressedFlag)
            let isStreaming = mode == .streaming
            deflater.compress(body, flush: isStreaming ? .sync : .finish, appendingTo: &frame)
            if isStreaming, frame.count >= 5, frame.suffix(4).elementsEqual(FrameDecompressor.syncFlushTrailer) {
                frame.removeLast(4)
            }
            let compressedCount = frame.count - 1
            // The receiver counts the restored trailer as input when it checks the ratio.
            let inflationInput = compressedCount + (isStreaming ? 4 : 0)
            let withinRatio =
                body.count <= limits.inflationRatioAllowanceBytes
                || body.count / inflationInput < limits.maximumInflationRatio
            let isSmaller = compressedCount < body.count && withinRatio
            if mode == .perFrame {
                // Pays when the frame sent is at least 10% smaller than the frame uncompressed.
                compressionPays = isSmaller && frame.count * 10 <= (body.count + 1) * 9
                framesUntilProbe = compressionPays ? 0 : Self.probeInterval
            }
            if isSmaller {
                compressedFrameCount += 1
                encodedByteCount += frame.count
                return frame
            }
            // Not smaller: send the body as is. A streaming receiver adds it to its history as
            // stored blocks, matching the history this deflater already holds.
            frame.removeAll(keepingCapacity: true)
        }
        frame.reserveCapacity(body.count + 1)
        frame.append(type.rawValue)
        frame.append(contentsOf: body)
        encodedByteCount += frame.count
        return frame
    }
}

@available(*, unavailable, message: "A FrameCompressor owns a zlib stream; use it from one thread at a time.")
extension FrameCompressor: Sendable {}
