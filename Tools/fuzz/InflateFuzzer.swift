// Not part of the Swift package: built by `Tools/fuzz/run inflate SECONDS` with -sanitize=fuzzer,address.

import TickwireZlib

/// libFuzzer entry for bounded inflation: the first byte picks the format (bit 0: zlib or raw),
/// whether the stream must end (bit 1), the size limit (bits 2-4: 2^(6+n) bytes) and the chunk
/// the input is fed in (bits 5-7); the rest is the compressed input. Inflation must throw
/// ``ZlibError`` for corrupt input and never produce more than the limit allows, in one call
/// or (for a raw stream fed in chunks, as permessage-deflate does) in each call.
@_cdecl("LLVMFuzzerTestOneInput")
public func inflateFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let format: DeflateFormat = selector & 1 == 0 ? .zlib : .raw
    let requiresEnd = selector & 2 != 0
    let maximumBytes = 1 << (6 + Int((selector >> 2) & 7))
    let chunk = Int(selector >> 5) * 97 + 1
    let limit = InflationLimit(maximumBytes: maximumBytes, maximumRatio: 64, ratioAllowanceBytes: 256)
    guard let inflater = try? Inflater(format: format) else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var offset = 0
    repeat {
        let end = requiresEnd ? input.count : min(input.count, offset + chunk)
        var output: [UInt8] = []
        do {
            try inflater.inflate(Array(input[offset ..< end]), limit: limit, requiresEnd: requiresEnd, appendingTo: &output)
        } catch {
            break
        }
        if output.count > maximumBytes {
            fatalError("inflated \(output.count) bytes from \(end - offset) past the limit of \(maximumBytes)")
        }
        offset = end
    } while offset < input.count
    return 0
}
