/// Reads values from a bit stream written by ``BitWriter``, least significant bit first.
///
/// Every read checks the bits left before it touches the input and throws ``CodecError``
/// (``CodecError/Kind/truncated`` past the end, ``CodecError/Kind/malformedVarint`` for a bad
/// varint, and so on). No input makes a read trap.
///
/// `package`, not public: the conformance decoder (`tickwire conformance-decoder`) reads the bit
/// stream vectors of `Protocol/vectors/bits-*.hex` with it; a game never needs it.
package struct BitReader: Sendable {
    let bytes: [UInt8]
    /// The position of the next bit to read, counted from the first bit of the input.
    var bitPosition: Int = 0
    let endBit: Int

    /// Creates a reader over `bytes`.
    ///
    /// - Parameter bytes: The input; the reader keeps a reference to it (no copy).
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.endBit = bytes.count * 8
    }

    /// The number of bits not yet read.
    var remainingBits: Int { endBit - bitPosition }

    /// Reads a `bits`-wide unsigned value, least significant bit first.
    ///
    /// - Parameter bits: How many bits to read, 0...64.
    /// - Returns: The value, below `2^bits`.
    /// - Throws: ``CodecError`` `.invalidBitCount` for a width outside 0...64, `.truncated` when
    ///   fewer bits are left.
    @inline(__always)
    package mutating func read(bits: Int) throws(CodecError) -> UInt64 {
        guard bits >= 0 && bits <= 64 else { throw CodecError(.invalidBitCount(bits)) }
        guard bits <= remainingBits else {
            throw CodecError(.truncated(neededBits: bits, availableBits: remainingBits))
        }
        if bits > 56 {
            let low = readUnchecked(bits: 32)
            return low | (readUnchecked(bits: bits - 32) << 32)
        }
        return readUnchecked(bits: bits)
    }

    /// Reads up to 56 bits the caller has checked are there.
    @inline(__always)
    mutating func readUnchecked(bits: Int) -> UInt64 {
        if bits == 0 { return 0 }
        let byteIndex = bitPosition >> 3
        let shift = UInt64(bitPosition & 7)
        var word: UInt64 = 0
        if byteIndex + 8 <= bytes.count {
            // Fast path: one unaligned little-endian load of the eight bytes holding the bits.
            word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: byteIndex, as: UInt64.self)) }
        } else {
            // Near the end: gather the bytes that exist (bits <= remainingBits, so the needed ones do).
            var index = byteIndex
            var gathered: UInt64 = 0
            while index < bytes.count {
                word |= UInt64(bytes[index]) << gathered
                gathered += 8
                index += 1
            }
        }
        bitPosition += bits
        return (word >> shift) & BitWriter.mask(bits)
    }

    /// Reads one bit as a boolean.
    ///
    /// - Returns: `true` for 1.
    /// - Throws: ``CodecError`` `.truncated` at the end of the input.
    @inline(__always)
    package mutating func readBool() throws(CodecError) -> Bool {
        guard remainingBits >= 1 else { throw CodecError(.truncated(neededBits: 1, availableBits: 0)) }
        return readUnchecked(bits: 1) == 1
    }

    /// Reads a zigzag-mapped signed value of `bits` bits.
    ///
    /// - Parameter bits: How many bits to read, 0...64.
    /// - Returns: The signed value.
    /// - Throws: ``CodecError`` as ``read(bits:)``.
    package mutating func readSigned(bits: Int) throws(CodecError) -> Int64 {
        ZigZag.decode(try read(bits: bits))
    }

    /// Reads an unsigned LEB128 varint written by ``BitWriter/writeVarint(_:)``.
    ///
    /// - Returns: The value.
    /// - Throws: ``CodecError`` `.truncated` at the end of the input; `.malformedVarint` when
    ///   the value needs more than 64 bits (more than ten groups, or a tenth group above 1) or
    ///   is not in its shortest form (a last group of zero after the first).
    package mutating func readVarint() throws(CodecError) -> UInt64 {
        let start = bitPosition
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let group = try read(bits: 8)
            let payload = group & 0x7F
            if shift == 63 && (group > 1) { throw CodecError(.malformedVarint(atBit: start)) }
            value |= payload << shift
            if group & 0x80 == 0 {
                if payload == 0 && shift > 0 { throw CodecError(.malformedVarint(atBit: start)) }
                return value
            }
            shift += 7
        }
    }

    /// Reads a varint that must fit in 32 bits.
    ///
    /// - Parameter what: Names the value in the error.
    /// - Returns: The value.
    /// - Throws: ``CodecError`` as ``readVarint()``, or `.valueOutOfRange` above `2^32 − 1`.
    mutating func readVarint32(_ what: String) throws(CodecError) -> UInt32 {
        let value = try readVarint()
        guard let narrow = UInt32(exactly: value) else {
            throw CodecError(.valueOutOfRange(what: what, value: "\(value)", allowed: "0...4294967295"))
        }
        return narrow
    }

    /// Reads a signed varint written by ``BitWriter/writeSignedVarint(_:)``.
    ///
    /// - Returns: The value.
    /// - Throws: ``CodecError`` as ``readVarint()``.
    mutating func readSignedVarint() throws(CodecError) -> Int64 {
        ZigZag.decode(try readVarint())
    }

    /// Reads an Elias-gamma code written by ``BitWriter/writeGamma(_:)``.
    ///
    /// - Returns: The value, at least 1.
    /// - Throws: ``CodecError`` `.truncated` at the end of the input, `.malformedGammaCode`
    ///   after 64 zero bits.
    package mutating func readGamma() throws(CodecError) -> UInt64 {
        let start = bitPosition
        // Fast path: the whole code (zeros, the 1, then as many value bits as zeros) lies in
        // one peeked word; otherwise read it in steps below.
        let peeked = min(remainingBits, 56)
        if peeked > 0 {
            let word = readUnchecked(bits: peeked)
            let zeros = word.trailingZeroBitCount
            if 2 * zeros + 1 <= peeked {
                bitPosition = start + 2 * zeros + 1
                return (UInt64(1) << UInt64(zeros)) | ((word >> UInt64(zeros + 1)) & BitWriter.mask(zeros))
            }
            bitPosition = start
        }
        // Count the leading zero bits (stored first, least significant first) from a peeked word.
        var zeros = 0
        while true {
            let available = min(remainingBits, 56)
            guard available > 0 else { throw CodecError(.truncated(neededBits: 1, availableBits: 0)) }
            let word = readUnchecked(bits: available)
            let run = word.trailingZeroBitCount
            if run < available {
                zeros += run
                bitPosition = bitPosition - available + run + 1
                break
            }
            zeros += available
            if zeros > 63 { throw CodecError(.malformedGammaCode(atBit: start)) }
        }
        if zeros > 63 { throw CodecError(.malformedGammaCode(atBit: start)) }
        return (UInt64(1) << UInt64(zeros)) | (try read(bits: zeros))
    }

    /// Reads a value written by ``BitWriter/write(_:in:)`` for the same range.
    ///
    /// - Parameter range: The range the writer used.
    /// - Returns: A value inside `range`.
    /// - Throws: ``CodecError`` as ``read(bits:)``, or `.valueOutOfRange` when the offset read
    ///   lies past the range's upper bound.
    mutating func read(in range: ClosedRange<Int64>) throws(CodecError) -> Int64 {
        // Wrapping subtraction: the span of any Int64 range fits in a UInt64 bit pattern.
        let span = UInt64(bitPattern: range.upperBound &- range.lowerBound)
        let offset = try read(bits: BitWriter.bitWidth(ofMaximum: span))
        guard offset <= span else {
            throw CodecError(.valueOutOfRange(what: "bounded integer", value: "offset \(offset)", allowed: "range \(range)"))
        }
        // Wrapping addition: lowerBound + offset stays inside the range, whose span fits in UInt64.
        return range.lowerBound &+ Int64(bitPattern: offset)
    }

    /// Checks that the input ends here: nothing but zero padding bits up to the next byte boundary.
    ///
    /// - Throws: ``CodecError`` `.trailingData` when more bits follow or padding bits are set.
    mutating func finish() throws(CodecError) {
        let left = remainingBits
        guard left < 8 else { throw CodecError(.trailingData(bits: left)) }
        if left > 0, readUnchecked(bits: left) != 0 { throw CodecError(.trailingData(bits: left)) }
    }
}
