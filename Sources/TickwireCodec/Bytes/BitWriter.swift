/// Writes values into a bit stream, least significant bit first.
///
/// Bit order (see `Protocol/PROTOCOL.md` §2): each value is written from its least significant
/// bit upward, and bits fill each byte from bit 0 (the least significant) to bit 7 before moving
/// to the next byte. ``bytes`` pads the last partial byte with zero bits.
///
/// Besides fixed-width unsigned values it writes booleans, zigzag-signed values, varints
/// (LEB128 groups of eight bits), Elias-gamma codes and integers bounded to a range, each in
/// exactly the bits it needs.
struct BitWriter: Sendable {
    /// Whole 64-bit words written so far; word `i` holds stream bits `64i ..< 64i + 64`.
    @usableFromInline var words: [UInt64]
    /// The bits after the last whole word, in its low `scratchBits` bits (always < 64).
    @usableFromInline var scratch: UInt64 = 0
    @usableFromInline var scratchBits: Int = 0

    /// Creates an empty writer.
    ///
    /// - Parameter capacity: Bytes to reserve up front.
    init(capacity: Int = 0) {
        words = []
        words.reserveCapacity((capacity + 7) / 8)
    }

    /// The number of bits written so far.
    var bitCount: Int { words.count * 64 + scratchBits }

    /// The bytes written so far, the last partial byte padded with zero bits.
    var bytes: [UInt8] {
        let count = (bitCount + 7) / 8
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = 0
            for word in words {
                for shift in stride(from: 0, to: 64, by: 8) {
                    buffer[index] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                    index += 1
                }
            }
            var rest = scratch
            while index < count {
                buffer[index] = UInt8(truncatingIfNeeded: rest)
                rest >>= 8
                index += 1
            }
            initialized = count
        }
    }

    /// Forgets everything written, keeping the allocated capacity.
    mutating func removeAll() {
        words.removeAll(keepingCapacity: true)
        scratch = 0
        scratchBits = 0
    }

    /// Writes the low `bits` bits of `value`, least significant first.
    ///
    /// - Parameters:
    ///   - value: The value; bits above `bits` are ignored.
    ///   - bits: How many bits to write, 0...64 (a programming error otherwise).
    @inlinable @inline(__always)
    mutating func write(_ value: UInt64, bits: Int) {
        precondition(bits >= 0 && bits <= 64, "BitWriter.write: bit count \(bits) is outside 0...64")
        writeSmall(value & BitWriter.mask(bits), bits: bits)
    }

    /// A mask of the low `bits` bits (0...64).
    @inlinable @inline(__always)
    static func mask(_ bits: Int) -> UInt64 {
        bits >= 64 ? UInt64.max : (UInt64(1) << UInt64(bits)) - 1
    }

    /// Appends `bits` (0...64) bits of `value`, which has no bits set above them.
    @inlinable @inline(__always)
    mutating func writeSmall(_ value: UInt64, bits: Int) {
        // Shifts of 64 or more give 0 in Swift's `<<` and `>>` on UInt64, which is what is wanted.
        scratch |= value << UInt64(scratchBits)
        let total = scratchBits + bits
        if total >= 64 {
            words.append(scratch)
            scratch = value >> UInt64(64 - scratchBits)
            scratchBits = total - 64
        } else {
            scratchBits = total
        }
    }

    /// Writes one bit: 1 for `true`, 0 for `false`.
    ///
    /// - Parameter value: The boolean.
    @inlinable @inline(__always)
    mutating func write(_ value: Bool) {
        writeSmall(value ? 1 : 0, bits: 1)
    }

    /// Writes a signed value zigzag-mapped (0, −1, 1, −2, … → 0, 1, 2, 3, …) in `bits` bits.
    ///
    /// - Parameters:
    ///   - value: The value; its zigzag image must fit in `bits` bits (higher bits are dropped).
    ///   - bits: How many bits to write, 0...64.
    @inlinable
    mutating func write(signed value: Int64, bits: Int) {
        write(ZigZag.encode(value), bits: bits)
    }

    /// Writes an unsigned LEB128 varint: groups of eight bits, the low seven carrying the value
    /// (least significant group first) and the high bit set when another group follows.
    ///
    /// - Parameter value: The value; 1 to 10 groups.
    @inlinable
    mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            writeSmall((rest & 0x7F) | 0x80, bits: 8)
            rest >>= 7
        }
        writeSmall(rest, bits: 8)
    }

    /// Writes a signed varint: the zigzag image of `value` as ``writeVarint(_:)``.
    ///
    /// - Parameter value: The value.
    @inlinable
    mutating func writeSignedVarint(_ value: Int64) {
        writeVarint(ZigZag.encode(value))
    }

    /// Writes an Elias-gamma code for `value` ≥ 1: as many zero bits as `value` has bits after
    /// its leading one, a one bit, then those low bits as an unsigned value (least significant
    /// first). 1 → `1`, 2 → `0 1 0`, 5 → `0 0 1 then 01`.
    ///
    /// - Parameter value: The value, at least 1 (a programming error otherwise).
    @inlinable
    mutating func writeGamma(_ value: UInt64) {
        precondition(value >= 1, "BitWriter.writeGamma: the gamma code starts at 1")
        let low = 63 - value.leadingZeroBitCount
        write(UInt64(1) << UInt64(low), bits: low + 1)
        write(value, bits: low)
    }

    /// Writes `value` in exactly the bits the range needs (``BitWriter/bitWidth(of:)``), as its
    /// offset from `range.lowerBound`.
    ///
    /// - Parameters:
    ///   - value: A value inside `range` (clamped into it otherwise).
    ///   - range: The values the reader expects.
    @inlinable
    mutating func write(_ value: Int64, in range: ClosedRange<Int64>) {
        let clamped = min(max(value, range.lowerBound), range.upperBound)
        // Wrapping subtraction: the offset of two Int64 values always fits in a UInt64.
        let offset = UInt64(bitPattern: clamped &- range.lowerBound)
        write(offset, bits: BitWriter.bitWidth(of: range))
    }

    /// The number of bits needed to store any value of `range` as an offset from its lower bound.
    ///
    /// - Parameter range: The range; a single value needs zero bits.
    /// - Returns: 0...64.
    @inlinable
    static func bitWidth(of range: ClosedRange<Int64>) -> Int {
        // Wrapping subtraction: the span of any Int64 range fits in a UInt64 bit pattern.
        bitWidth(ofMaximum: UInt64(bitPattern: range.upperBound &- range.lowerBound))
    }

    /// The number of bits needed to store every value in `0...maximum`.
    ///
    /// - Parameter maximum: The largest value.
    /// - Returns: 0 for a maximum of 0, otherwise the position of its highest one bit plus one.
    @inlinable
    static func bitWidth(ofMaximum maximum: UInt64) -> Int {
        64 - maximum.leadingZeroBitCount
    }

    /// The number of bits ``writeGamma(_:)`` writes for `value` (≥ 1).
    ///
    /// - Parameter value: The value.
    /// - Returns: `2 × (bits after the leading one) + 1`.
    @inlinable
    static func gammaBitCount(_ value: UInt64) -> Int {
        2 * (63 - value.leadingZeroBitCount) + 1
    }

    /// The number of bits ``writeVarint(_:)`` writes for `value`.
    ///
    /// - Parameter value: The value.
    /// - Returns: 8 per seven-bit group.
    @inlinable
    static func varintBitCount(_ value: UInt64) -> Int {
        let significant = max(1, 64 - value.leadingZeroBitCount)
        return 8 * ((significant + 6) / 7)
    }
}

/// The zigzag mapping between signed and unsigned integers: 0, −1, 1, −2, 2 … ↔ 0, 1, 2, 3, 4 …
enum ZigZag {
    /// Maps a signed value to its zigzag image.
    ///
    /// - Parameter value: Any signed value.
    /// - Returns: `(value << 1) ^ (value >> 63)` as unsigned.
    @inlinable
    static func encode(_ value: Int64) -> UInt64 {
        // Wrapping shift is the mapping: the sign bit moves to bit 0.
        UInt64(bitPattern: (value &<< 1) ^ (value >> 63))
    }

    /// Maps a zigzag image back to its signed value.
    ///
    /// - Parameter value: Any unsigned value.
    /// - Returns: The signed value whose image it is.
    @inlinable
    static func decode(_ value: UInt64) -> Int64 {
        // Wrapping negation is the mapping: 0 − 1 gives the all-ones mask for odd images.
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}
