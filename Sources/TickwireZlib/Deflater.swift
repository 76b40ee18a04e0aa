import CZlib

/// A deflate compressor over one zlib stream.
///
/// Keep one `Deflater` for a connection to compress message after message with a shared
/// history (context takeover): each ``compress(_:flush:appendingTo:)-([UInt8],_,_)`` with ``FlushMode/sync``
/// ends on a byte boundary, so the receiver can inflate every message as it arrives, and
/// later messages may refer back to earlier ones. Call ``reset()`` to forget the history.
///
/// Not thread-safe: use one deflater from one thread at a time.
public final class Deflater {
    /// How a call to ``Deflater/compress(_:flush:appendingTo:)-([UInt8],_,_)`` ends its output.
    public struct FlushMode: Hashable, Sendable {
        let rawValue: Int32
        /// Ends on a byte boundary with an empty stored block (`00 00 FF FF`), keeping the history (`Z_SYNC_FLUSH`).
        public static let sync = FlushMode(rawValue: Z_SYNC_FLUSH)
        /// Ends the stream (`Z_FINISH`); the deflater resets itself for the next stream.
        public static let finish = FlushMode(rawValue: Z_FINISH)
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var scratch: [UInt8]
    /// The format this deflater writes.
    public let format: DeflateFormat
    /// The LZ77 window size in bits (9...15).
    public let windowBits: Int

    /// Creates a compressor.
    ///
    /// - Parameters:
    ///   - format: Raw deflate or the zlib format.
    ///   - level: Compression level, 0 (store) to 9 (smallest); 6 is zlib's default.
    ///   - windowBits: Base-two logarithm of the history window, 9...15.
    ///   - memoryLevel: zlib's `memLevel`, 1...9: memory for the compression state.
    /// - Throws: ``ZlibError`` when an argument is out of range or zlib cannot set up the stream.
    public init(format: DeflateFormat, level: Int = 6, windowBits: Int = 15, memoryLevel: Int = 8) throws(ZlibError) {
        guard (9...15).contains(windowBits) else { throw .invalidWindowBits(windowBits) }
        guard (0...9).contains(level) else { throw .invalidLevel(level) }
        self.format = format
        self.windowBits = windowBits
        self.scratch = [UInt8](repeating: 0, count: 16 * 1024)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = tickwire_deflateInit2(
            stream, Int32(level), Z_DEFLATED, format.zlibWindowBits(windowBits),
            Int32(min(max(memoryLevel, 1), 9)), Z_DEFAULT_STRATEGY
        )
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .initializationFailed(code: code)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Forgets the compression history, as if the deflater were new.
    public func reset() {
        deflateReset(stream)
    }

    /// Compresses `input` and appends the compressed bytes to `output`.
    ///
    /// - Parameters:
    ///   - input: The bytes to compress.
    ///   - flush: ``FlushMode/sync`` to keep the stream open, ``FlushMode/finish`` to end it.
    ///   - output: Receives the compressed bytes after its current contents.
    public func compress(_ input: UnsafeRawBufferPointer, flush: FlushMode, appendingTo output: inout [UInt8]) {
        let stream = self.stream
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        )
        stream.pointee.avail_in = uInt(input.count)
        scratch.withUnsafeMutableBufferPointer { scratch in
            while true {
                stream.pointee.next_out = scratch.baseAddress
                stream.pointee.avail_out = uInt(scratch.count)
                let code = deflate(stream, flush.rawValue)
                let produced = scratch.count - Int(stream.pointee.avail_out)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<produced]))
                // deflate only fails on a programming error (a stream used after deflateEnd);
                // Z_BUF_ERROR means "no progress possible", which ends the loop too.
                if code == Z_STREAM_END || code != Z_OK { break }
                if stream.pointee.avail_out != 0 && stream.pointee.avail_in == 0 { break }
            }
        }
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        if flush == .finish { deflateReset(stream) }
    }

    /// Compresses `input` and appends the compressed bytes to `output`.
    ///
    /// - Parameters:
    ///   - input: The bytes to compress.
    ///   - flush: ``FlushMode/sync`` to keep the stream open, ``FlushMode/finish`` to end it.
    ///   - output: Receives the compressed bytes after its current contents.
    public func compress(_ input: [UInt8], flush: FlushMode, appendingTo output: inout [UInt8]) {
        input.withUnsafeBytes { compress($0, flush: flush, appendingTo: &output) }
    }

    /// Compresses `input` into a new array.
    ///
    /// - Parameters:
    ///   - input: The bytes to compress.
    ///   - flush: ``FlushMode/sync`` to keep the stream open, ``FlushMode/finish`` to end it.
    /// - Returns: The compressed bytes.
    public func compress(_ input: [UInt8], flush: FlushMode) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 2 + 16)
        compress(input, flush: flush, appendingTo: &output)
        return output
    }
}

@available(*, unavailable, message: "A Deflater owns mutable zlib state; use it from one thread at a time.")
extension Deflater: Sendable {}
