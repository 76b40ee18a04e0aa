// Not part of the Swift package: built by `Tools/fuzz/run frame SECONDS` with -sanitize=fuzzer,address.

import TickwireCodec

/// libFuzzer entry: the first byte picks the compression mode, the rest is cut into frames by
/// one-byte length prefixes and decoded in order on one connection. Decoding must never crash;
/// in mode none a frame that decodes must re-encode to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func frameFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first else { return 0 }
    let mode: CompressionMode = [.none, .perFrame, .streaming][Int(first % 3)]
    guard let decompressor = try? FrameDecompressor(mode: mode, limits: FrameLimits(maximumBodyBytes: 1 << 16)) else { return 0 }
    var index = 1
    while index < input.count {
        let length = Int(input[index])
        index += 1
        let frame = Array(input[index..<min(index + length, input.count)])
        index += length
        guard let message = try? decompressor.decode(frame) else { continue }
        if mode == .none {
            let again = try? FrameCompressor.uncompressed().encode(message)
            if again != frame { fatalError("frame \(frame) decoded as \(message) re-encodes as \(String(describing: again))") }
        }
    }
    return 0
}
