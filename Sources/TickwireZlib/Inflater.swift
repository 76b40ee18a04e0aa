import CZlib

/// A deflate decompressor over one zlib stream, bounded by an ``InflationLimit``.
///
/// Keep one `Inflater` per connection to inflate a sequence of sync-flushed messages that
/// share a history (context takeover), or call ``reset()`` between independent streams.
///
/// Not thread-safe: use one inflater from one thread at a time.
public final class Inflater {
    let stream: UnsafeMutablePointer<z_stream>
    private var scratch: [UInt8]
    /// The format this inflater reads.
    public let format: DeflateFormat
    /// The LZ77 window size in bits (9...15) the inflater accepts.
    public let windowBits: Int
    /// Whether the stream's final block has been inflated by a call without `requiresEnd`: the
    /// deflate stream is over, and any further input would be refused. ``reset()`` clears it.
    public private(set) var hasEnded = false

    /// Creates a decompressor.
    ///
    /// - Parameters:
    ///   - format: Raw deflate or the zlib format.
    ///   - windowBits: Base-two logarithm of the largest history window accepted, 9...15.
    /// - Throws: ``ZlibError`` when an argument is out of range or zlib cannot set up the stream.
    public init(format: DeflateFormat, windowBits: Int = 15) throws(ZlibError) {
        guard (9...15).contains(windowBits) else { throw .invalidWindowBits(windowBits) }
        self.format = format
        self.windowBits = windowBits
        self.scratch = [UInt8](repeating: 0, count: 16 * 1024)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = tickwire_inflateInit2(stream, format.zlibWindowBits(windowBits))
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .initializationFailed(code: code)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Runs `body` over the 16 KiB output scratch buffer.
    func withScratch(_ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        scratch.withUnsafeMutableBufferPointer { body($0) }
    }

    /// Forgets the history, as if the inflater were new.
    public func reset() {
        inflateReset(stream)
        hasEnded = false
    }

    /// Inflates `input` and appends the result to `output`, refusing to exceed `limit`.
    ///
    /// The bytes counted against the limit are those this call produces, not what `output`
    /// held before. With `requiresEnd`, the input must hold a whole stream (a zlib or raw
    /// stream ended with `Z_FINISH`), and the inflater resets itself afterwards; without it,
    /// the input may end anywhere a sync flush ends, and the history is kept.
    ///
    /// - Parameters:
    ///   - input: Compressed bytes.
    ///   - limit: The most output this call may produce.
    ///   - requiresEnd: Whether the input must end its stream.
    ///   - output: Receives the inflated bytes after its current contents.
    /// - Throws: ``ZlibError`` for corrupt or truncated input, or a broken limit. After an
    ///   error the stream's history is unusable: reset it or drop the connection.
    public func inflate(
        _ input: UnsafeRawBufferPointer, limit: InflationLimit, requiresEnd: Bool = false,
        appendingTo output: inout [UInt8]
    ) throws(ZlibError) {
        let stream = self.stream
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        )
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        let startCount = output.count
        var ended = false
        var failure: ZlibError?
        scratch.withUnsafeMutableBufferPointer { scratch in
            while true {
                stream.pointee.next_out = scratch.baseAddress
                stream.pointee.avail_out = uInt(scratch.count)
                let code = CZlib.inflate(stream, Z_SYNC_FLUSH)
                let produced = scratch.count - Int(stream.pointee.avail_out)
                do throws(ZlibError) {
                    try limit.check(outputBytes: output.count - startCount + produced, inputBytes: input.count)
                } catch {
                    failure = error
                    return
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<produced]))
                switch code {
                case Z_STREAM_END:
                    ended = true
                    return
                case Z_OK:
                    // More output may be pending when the scratch buffer filled up.
                    if stream.pointee.avail_out != 0 && stream.pointee.avail_in == 0 { return }
                case Z_BUF_ERROR:
                    // No progress was possible: the input is used up.
                    return
                default:
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "unknown"
                    failure = .corruptData(code: code, message: message)
                    return
                }
            }
        }
        if let failure { throw failure }
        if ended {
            if stream.pointee.avail_in != 0 && requiresEnd {
                inflateReset(stream)
                throw .corruptData(code: Z_DATA_ERROR, message: "trailing bytes after the end of the stream")
            }
            if requiresEnd { inflateReset(stream) } else { hasEnded = true }
        } else if requiresEnd {
            inflateReset(stream)
            throw .truncated
        }
    }

    /// Inflates `input` and appends the result to `output`, refusing to exceed `limit`.
    ///
    /// - Parameters:
    ///   - input: Compressed bytes.
    ///   - limit: The most output this call may produce.
    ///   - requiresEnd: Whether the input must end its stream.
    ///   - output: Receives the inflated bytes after its current contents.
    /// - Throws: ``ZlibError`` for corrupt or truncated input, or a broken limit.
    public func inflate(
        _ input: [UInt8], limit: InflationLimit, requiresEnd: Bool = false, appendingTo output: inout [UInt8]
    ) throws(ZlibError) {
        // `withUnsafeBytes` rethrows untyped errors, so carry the typed one out in a Result.
        let result = input.withUnsafeBytes { buffer in
            Result { () throws(ZlibError) in
                try inflate(buffer, limit: limit, requiresEnd: requiresEnd, appendingTo: &output)
            }
        }
        try result.get()
    }

    /// Inflates `input` into a new array, refusing to exceed `limit`.
    ///
    /// - Parameters:
    ///   - input: Compressed bytes.
    ///   - limit: The most output this call may produce.
    ///   - requiresEnd: Whether the input must end its stream.
    /// - Returns: The inflated bytes.
    /// - Throws: ``ZlibError`` for corrupt or truncated input, or a broken limit.
    public func inflate(_ input: [UInt8], limit: InflationLimit, requiresEnd: Bool = false) throws(ZlibError) -> [UInt8] {
        var output: [UInt8] = []
        try inflate(input, limit: limit, requiresEnd: requiresEnd, appendingTo: &output)
        return output
    }
}

@available(*, unavailable, message: "An Inflater owns mutable zlib state; use it from one thread at a time.")
extension Inflater: Sendable {}
