import CZlib

/// How far one bounded step of inflation (``Inflater/inflateStep(_:limit:stepBytes:appendingTo:)``) went.
public struct InflationStep: Hashable, Sendable {
    /// How many bytes of the input the step consumed; the rest is for the next step.
    public var consumedBytes: Int
    /// Whether the step stopped because it produced its `stepBytes` with more output possibly
    /// to come: call again with the unconsumed input (which may be empty, the inflater holding
    /// output still to write). `false`: the input is used up and every byte it yields is written.
    public var isStopped: Bool
}

extension Inflater {
    /// Inflates `input` like ``inflate(_:limit:requiresEnd:appendingTo:)-(UnsafeRawBufferPointer,_,_,_)``
    /// (without `requiresEnd`), but writes at most `stepBytes` of output, so that a caller serving
    /// many streams on one thread can bound the time one call takes (a deflate bomb inflates at
    /// about 1 GB/s) and go on later.
    ///
    /// - Parameters:
    ///   - input: Compressed bytes.
    ///   - limit: The most output this call may produce; checked as in the unbounded call.
    ///   - stepBytes: The most output this step writes (at least 1).
    ///   - output: Receives the inflated bytes after its current contents.
    /// - Returns: How much input the step consumed and whether it stopped at `stepBytes`.
    /// - Throws: ``ZlibError`` for corrupt input or a broken limit.
    public func inflateStep(
        _ input: UnsafeRawBufferPointer, limit: InflationLimit, stepBytes: Int, appendingTo output: inout [UInt8]
    ) throws(ZlibError) -> InflationStep {
        let stream = self.stream
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        let startCount = output.count
        let step = max(stepBytes, 1)
        var isStopped = false
        var failure: ZlibError?
        withScratch { scratch in
            while true {
                let room = min(scratch.count, step - (output.count - startCount))
                guard room > 0 else {
                    isStopped = true
                    return
                }
                stream.pointee.next_out = scratch.baseAddress
                stream.pointee.avail_out = uInt(room)
                let code = CZlib.inflate(stream, Z_SYNC_FLUSH)
                let produced = room - Int(stream.pointee.avail_out)
                do throws(ZlibError) {
                    try limit.check(outputBytes: output.count - startCount + produced, inputBytes: input.count)
                } catch {
                    failure = error
                    return
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<produced]))
                switch code {
                case Z_STREAM_END, Z_BUF_ERROR:
                    return  // the end of the stream, or no progress possible: the input is used up
                case Z_OK:
                    // Output may be pending when the room filled up; otherwise the input is used up.
                    if stream.pointee.avail_out != 0 && stream.pointee.avail_in == 0 { return }
                default:
                    let message = stream.pointee.msg.map { String(cString: $0) } ?? "unknown"
                    failure = .corruptData(code: code, message: message)
                    return
                }
            }
        }
        if let failure { throw failure }
        return InflationStep(consumedBytes: input.count - Int(stream.pointee.avail_in), isStopped: isStopped)
    }
}
