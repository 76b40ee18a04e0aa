/// The binary range coder of the entropy-coded delta (`Protocol/PROTOCOL.md` §4.5.2): LZMA's
/// arithmetic (32-bit range, carry propagation through a cached byte) with 12-bit adaptive
/// probabilities, writing bytes most significant first.
///
/// The first byte LZMA's encoder emits is always 0 and is not written; the flush writes the
/// four bytes of `low`, so that the decoder reads exactly the payload (a truncated payload
/// always runs out, and bytes left over are an error).
struct RangeEncoder {
    /// Probability precision: a probability is the chance of a 0 bit in units of 2^-12.
    static let probabilityBits: UInt32 = 12
    /// The initial state of every model: probability one half (high 12 bits), nothing seen (low 4 bits).
    static let initialProbability: UInt16 = (1 << 11) << 4
    /// The adaptation shift after `n` bits seen (nibble `n` of this table, `n` saturating at 15):
    /// a model moves 1/2^shift of the way towards each bit, fast while it has seen little.
    static let adaptationShifts: UInt64 = 0x4444_4444_3333_3221

    /// The model after coding `bit` with it: the probability adapted, the count advanced.
    @inline(__always)
    static func adapted(_ model: UInt16, _ bit: Bool) -> UInt16 {
        let shift = adaptationShift(model)
        var probability = model &>> 4
        if bit {
            probability &-= probability &>> shift
        } else {
            probability &+= ((1 << 12) &- probability) &>> shift
        }
        return probability &<< 4 | advancedCount(model)
    }

    /// ``adapted(_:_:)`` without a branch on the bit: `mask` is all ones for a 1 bit and zero
    /// for a 0 bit.
    @inline(__always)
    static func adapted(_ model: UInt16, mask: UInt16) -> UInt16 {
        let shift = adaptationShift(model)
        let probability = model &>> 4
        let towardsZero = probability &>> shift
        let towardsOne = ((1 << 12) &- probability) &>> shift
        return (probability &+ (towardsOne & ~mask) &- (towardsZero & mask)) &<< 4 | advancedCount(model)
    }

    /// The adaptation shift of a model, from the count in its low 4 bits (``adaptationShifts``).
    @inline(__always)
    private static func adaptationShift(_ model: UInt16) -> UInt16 {
        UInt16(truncatingIfNeeded: adaptationShifts &>> UInt64((model & 15) &<< 2)) & 15
    }

    /// A model's count after one more bit, saturating at 15.
    @inline(__always)
    private static func advancedCount(_ model: UInt16) -> UInt16 {
        let count = model & 15
        return count == 15 ? 15 : count &+ 1
    }

    /// Below this the range is renormalized (shifted left by one byte).
    static let topValue: UInt32 = 1 << 24

    private(set) var bytes: [UInt8]
    private var low: UInt64 = 0
    private var range: UInt32 = 0xFFFF_FFFF
    private var cache: UInt8 = 0
    private var cacheSize = 1
    /// Whether LZMA's leading zero byte is still to be dropped.
    private var dropsNextByte = true

    /// Creates an encoder whose output starts with `prefix` (a header written before the payload).
    init(prefix: [UInt8] = [], capacity: Int = 64) {
        bytes = prefix
        bytes.reserveCapacity(prefix.count + capacity)
    }

    /// Codes `bit` with the adaptive probability `probability`, then adapts it.
    @inline(__always)
    mutating func encode(_ bit: Bool, _ probability: inout UInt16) {
        let bound = (range &>> Self.probabilityBits) &* UInt32(probability &>> 4)
        if bit {
            low &+= UInt64(bound)
            range &-= bound
        } else {
            range = bound
        }
        probability = Self.adapted(probability, bit)
        if range < Self.topValue { renormalize() }
    }

    /// Shifts out bytes until the range is at least ``topValue``: about once per 8 bits coded,
    /// so it stays out of line, and the inlined ``encode(_:_:)`` small.
    @inline(never)
    private mutating func renormalize() {
        repeat {
            range &<<= 8
            shiftLow()
        } while range < Self.topValue
    }

    /// Codes the `count` (1...8) low bits of `value` at probability one half each, as one symbol.
    @inline(__always)
    mutating func encodeDirect(_ value: UInt64, count: Int) {
        range &>>= UInt32(truncatingIfNeeded: count)
        low &+= UInt64(range) &* (value & ((1 &<< UInt64(count)) &- 1))
        if range < Self.topValue { renormalize() }
    }

    /// Codes the `count` (0...64) low bits of `value` uniformly, in chunks of at most 8 bits,
    /// the most significant chunk first. Up to 8 bits (a delta's usual few) are one inlined symbol.
    @inline(__always)
    mutating func encodeRaw(_ value: UInt64, count: Int) {
        if count > 8 {
            encodeChunks(value, count: count)
        } else if count > 0 {
            encodeDirect(value, count: count)
        }
    }

    /// ``encodeRaw(_:count:)`` past 8 bits, chunk by chunk.
    @inline(never)
    private mutating func encodeChunks(_ value: UInt64, count: Int) {
        var left = count
        while left > 0 {
            let chunk = min(left, 8)
            left -= chunk
            encodeDirect(value >> UInt64(left), count: chunk)
        }
    }

    /// Codes `bit` (0 or 1) as ``encode(_:_:)`` does, without a branch on it: for bits near a
    /// coin toss (a delta's sign, the bits of its bucket), where a branch would often mispredict.
    @inline(__always)
    mutating func encodeUnpredictable(_ bit: Int, _ probability: inout UInt16) {
        let mask = UInt32(0) &- UInt32(truncatingIfNeeded: bit)
        let model = probability
        let bound = (range &>> Self.probabilityBits) &* UInt32(model &>> 4)
        low &+= UInt64(bound & mask)
        // A 1 bit keeps range − bound, a 0 bit bound.
        range = bound ^ ((bound ^ (range &- bound)) & mask)
        probability = Self.adapted(model, mask: UInt16(truncatingIfNeeded: mask))
        if range < Self.topValue { renormalize() }
    }

    /// Codes the `bits` low bits of `value`, most significant first, through a bit tree of
    /// adaptive probabilities starting at `base` in `models` (node 1 is the root; node `n`'s
    /// children are `2n` and `2n + 1`), each bit as ``encodeUnpredictable(_:_:)``.
    @inline(__always)
    mutating func encodeTree(_ value: UInt64, bits: Int, models: UnsafeMutablePointer<UInt16>) {
        var node = 1
        var shift = bits
        while shift > 0 {
            shift &-= 1
            let bit = Int(truncatingIfNeeded: value &>> UInt64(shift)) & 1
            encodeUnpredictable(bit, &models[node])
            node = node &<< 1 | bit
        }
    }

    /// Codes an integer below 2^32 (`Protocol/PROTOCOL.md` §4.5.3, `I(v, tree)`): the bucket of
    /// `value + 1` through the 6-bit tree at `models`, then its bits below the leading one, raw.
    mutating func encodeInteger(_ value: UInt64, models: UnsafeMutablePointer<UInt16>) {
        let shifted = value + 1
        let bucket = 63 - shifted.leadingZeroBitCount
        encodeTree(UInt64(bucket), bits: 6, models: models)
        encodeRaw(shifted, count: bucket)
    }

    private mutating func shiftLow() {
        if low < 0xFF00_0000 || low >= 1 << 32 {
            let carry = UInt8(truncatingIfNeeded: low >> 32)
            var pending = cache
            repeat {
                emit(pending &+ carry)
                pending = 0xFF
                cacheSize -= 1
            } while cacheSize != 0
            cache = UInt8(truncatingIfNeeded: low >> 24)
        }
        cacheSize += 1
        low = (low & 0x00FF_FFFF) << 8
    }

    @inline(__always)
    private mutating func emit(_ byte: UInt8) {
        if dropsNextByte {
            dropsNextByte = false
        } else {
            bytes.append(byte)
        }
    }

    /// Ends the stream: writes out the cached byte and the four bytes of `low`.
    mutating func finish() {
        for _ in 0..<5 { shiftLow() }
    }
}
