/// Decodes what ``RangeEncoder`` wrote (`Protocol/PROTOCOL.md` §4.5.2).
///
/// Reads the bytes of `input` from `start`, exactly: a read past the end is `truncated`, and
/// ``finish()`` refuses bytes left over (`trailingData`) and a code that does not end at 0
/// (`malformedRangeCode`). Because the decoder reads the same
/// bytes as the encoder wrote, along the same path, every truncation of a valid payload runs
/// out before its end.
struct RangeDecoder {
    private let input: [UInt8]
    private var position: Int
    private var range: UInt32 = 0xFFFF_FFFF
    private var code: UInt32 = 0

    /// Starts decoding `input` at byte `start`.
    ///
    /// - Throws: ``CodecError`` `.truncated` when the payload is empty, `.malformedRangeCode`
    ///   when its first four bytes are `FF FF FF FF` (no encoder writes them).
    init(_ input: [UInt8], start: Int) throws(CodecError) {
        self.input = input
        self.position = start
        guard start < input.count else {
            throw CodecError(.truncated(neededBits: 8, availableBits: 0))
        }
        for _ in 0..<4 { code = code << 8 | UInt32(try nextByte()) }
        guard code < range else { throw CodecError(.malformedRangeCode(atByte: start)) }
    }

    @inline(__always)
    private mutating func nextByte() throws(CodecError) -> UInt8 {
        let index = position
        guard index < input.count else { throw CodecError(.truncated(neededBits: 8, availableBits: 0)) }
        position += 1
        return input[index]
    }

    /// Reads bytes until the range is at least ``RangeEncoder/topValue``: about once per 8 bits
    /// decoded, so it stays out of line, and the inlined ``decode(_:)`` small.
    @inline(never)
    private mutating func normalize() throws(CodecError) {
        while range < RangeEncoder.topValue {
            range &<<= 8
            code = code &<< 8 | UInt32(try nextByte())
        }
    }

    /// Decodes one bit with the adaptive probability `probability`, then adapts it.
    @inline(__always)
    mutating func decode(_ probability: inout UInt16) throws(CodecError) -> Bool {
        let bound = (range &>> RangeEncoder.probabilityBits) &* UInt32(probability &>> 4)
        let bit: Bool
        if code < bound {
            range = bound
            bit = false
        } else {
            code &-= bound
            range &-= bound
            bit = true
        }
        probability = RangeEncoder.adapted(probability, bit)
        if range < RangeEncoder.topValue { try normalize() }
        return bit
    }

    /// Decodes `count` (1...8) bits coded at probability one half each, as one symbol.
    @inline(__always)
    mutating func decodeDirect(count: Int) throws(CodecError) -> UInt64 {
        range &>>= UInt32(count)
        let value = code / range
        guard value >> UInt32(count) == 0 else { throw CodecError(.malformedRangeCode(atByte: position)) }
        code &-= value &* range
        if range < RangeEncoder.topValue { try normalize() }
        return UInt64(value)
    }

    /// Decodes `count` (0...64) uniform bits written by ``RangeEncoder/encodeRaw(_:count:)``;
    /// up to 8 bits inlined, as one symbol.
    @inline(__always)
    mutating func decodeRaw(count: Int) throws(CodecError) -> UInt64 {
        if count > 8 { return try decodeChunks(count: count) }
        return count > 0 ? try decodeDirect(count: count) : 0
    }

    /// ``decodeRaw(count:)`` past 8 bits, chunk by chunk.
    @inline(never)
    private mutating func decodeChunks(count: Int) throws(CodecError) -> UInt64 {
        var value: UInt64 = 0
        var left = count
        while left > 0 {
            let chunk = min(left, 8)
            left -= chunk
            value = value << UInt64(chunk) | (try decodeDirect(count: chunk))
        }
        return value
    }

    /// Decodes one bit as ``decode(_:)`` does, without a branch on it (see
    /// ``RangeEncoder/encodeUnpredictable(_:_:)``): 0 or 1.
    @inline(__always)
    mutating func decodeUnpredictable(_ probability: inout UInt16) throws(CodecError) -> Int {
        let model = probability
        let bound = (range &>> RangeEncoder.probabilityBits) &* UInt32(model &>> 4)
        let bit = code >= bound ? 1 : 0
        let mask = UInt32(0) &- UInt32(truncatingIfNeeded: bit)
        code &-= bound & mask
        // A 1 bit keeps range − bound, a 0 bit bound.
        range = bound ^ ((bound ^ (range &- bound)) & mask)
        probability = RangeEncoder.adapted(model, mask: UInt16(truncatingIfNeeded: mask))
        if range < RangeEncoder.topValue { try normalize() }
        return bit
    }

    /// Decodes a `bits`-bit value through the bit tree at `models` (see
    /// ``RangeEncoder/encodeTree(_:bits:models:)``), each bit as ``decodeUnpredictable(_:)``.
    @inline(__always)
    mutating func decodeTree(bits: Int, models: UnsafeMutablePointer<UInt16>) throws(CodecError) -> UInt64 {
        var node = 1
        for _ in 0..<bits {
            node = node &<< 1 | (try decodeUnpredictable(&models[node]))
        }
        return UInt64(node &- (1 &<< bits))
    }

    /// Decodes an integer written by ``RangeEncoder/encodeInteger(_:models:)``.
    ///
    /// - Throws: `.valueOutOfRange` for a bucket above 32 (no integer below 2^32 has it).
    mutating func decodeInteger(models: UnsafeMutablePointer<UInt16>) throws(CodecError) -> UInt64 {
        let bucket = try decodeTree(bits: 6, models: models)
        guard bucket <= 32 else {
            throw CodecError(.valueOutOfRange(what: "integer bucket", value: "\(bucket)", allowed: "0...32"))
        }
        let shifted = UInt64(1) << bucket | (try decodeRaw(count: Int(bucket)))
        return shifted - 1
    }

    /// Checks that the stream ended exactly: all of the payload read, and the code back at 0.
    ///
    /// The encoder's flush writes exactly its final `low`, so the code of every payload it
    /// produces ends at 0; any other ending decodes symbols that no encoder wrote that way
    /// (protocol 1.1, `Protocol/PROTOCOL.md` §4.5.2). Together with the checks as it reads, this
    /// leaves one payload for each sequence of symbols.
    ///
    /// - Throws: ``CodecError`` `.trailingData` when bytes are left over, then
    ///   `.malformedRangeCode` when the code is not 0.
    mutating func finish() throws(CodecError) {
        let left = input.count - position
        guard left == 0 else { throw CodecError(.trailingData(bits: left * 8)) }
        guard code == 0 else { throw CodecError(.malformedRangeCode(atByte: position)) }
    }
}
