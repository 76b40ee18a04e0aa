/// Reads byte-level integers, varints and byte strings from a buffer, checking every read.
///
/// The reading half of ``ByteWriter``: holds a buffer and an index, and every read first checks
/// that the bytes are there, throwing ``FrameError/truncated(offset:needed:)`` otherwise. Varints
/// must be in their shortest form and fit in 64 bits. Byte strings are checked against a limit
/// before anything is allocated. Offsets in errors count from the start of the buffer.
public struct ByteReader: Sendable {
    @usableFromInline let buffer: [UInt8]
    /// The index of the next byte to read.
    public private(set) var offset: Int
    @usableFromInline let end: Int

    /// Creates a reader over `buffer[range]`.
    ///
    /// - Parameters:
    ///   - buffer: The bytes to read.
    ///   - range: The part of `buffer` to read; the whole buffer when `nil`.
    public init(_ buffer: [UInt8], range: Range<Int>? = nil) {
        let range = range?.clamped(to: 0..<buffer.count) ?? 0..<buffer.count
        self.buffer = buffer
        self.offset = range.lowerBound
        self.end = range.upperBound
    }

    /// The number of bytes left to read.
    public var remainingCount: Int { end - offset }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == end }

    /// Throws unless `count` more bytes are available.
    @inline(__always)
    private func require(_ count: Int) throws(FrameError) {
        if count > end - offset { throw .truncated(offset: end, needed: count - (end - offset)) }
    }

    /// Reads one byte.
    ///
    /// - Returns: The byte.
    /// - Throws: ``FrameError/truncated(offset:needed:)`` at the end of the buffer.
    public mutating func readUInt8() throws(FrameError) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return buffer[offset]
    }

    /// Reads a big-endian 16-bit integer.
    ///
    /// - Returns: The integer.
    /// - Throws: ``FrameError/truncated(offset:needed:)`` when fewer than 2 bytes are left.
    public mutating func readUInt16() throws(FrameError) -> UInt16 {
        UInt16(truncatingIfNeeded: try readBigEndian(byteCount: 2))
    }

    /// Reads a big-endian 32-bit integer.
    ///
    /// - Returns: The integer.
    /// - Throws: ``FrameError/truncated(offset:needed:)`` when fewer than 4 bytes are left.
    public mutating func readUInt32() throws(FrameError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readBigEndian(byteCount: 4))
    }

    /// Reads a big-endian 64-bit integer.
    ///
    /// - Returns: The integer.
    /// - Throws: ``FrameError/truncated(offset:needed:)`` when fewer than 8 bytes are left.
    public mutating func readUInt64() throws(FrameError) -> UInt64 {
        try readBigEndian(byteCount: 8)
    }

    private mutating func readBigEndian(byteCount: Int) throws(FrameError) -> UInt64 {
        try require(byteCount)
        var value: UInt64 = 0
        for index in offset..<(offset + byteCount) {
            value = value << 8 | UInt64(buffer[index])
        }
        offset += byteCount
        return value
    }

    /// Reads an unsigned varint (LEB128).
    ///
    /// - Returns: The integer.
    /// - Throws: ``FrameError/truncated(offset:needed:)`` when the buffer ends inside the varint,
    ///   ``FrameError/varintOverflow(offset:)`` when it does not fit in 64 bits (the shift passes
    ///   63, or the tenth byte carries more than one bit), ``FrameError/nonCanonicalVarint(offset:)``
    ///   when it is longer than its shortest form.
    public mutating func readVarUInt() throws(FrameError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        while true {
            guard index < end else { throw .truncated(offset: end, needed: 1) }
            let byte = buffer[index]
            index += 1
            if shift == 63 && byte > 1 { throw .varintOverflow(offset: start) }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                // A last byte of zero after other bytes adds nothing: the varint is overlong.
                if byte == 0 && index - start > 1 { throw .nonCanonicalVarint(offset: start) }
                break
            }
            shift += 7
            if shift > 63 { throw .varintOverflow(offset: start) }
        }
        offset = index
        return value
    }

    /// Reads a signed (zigzag) varint.
    ///
    /// - Returns: The integer.
    /// - Throws: As ``readVarUInt()``.
    public mutating func readVarInt() throws(FrameError) -> Int64 {
        let raw = try readVarUInt()
        // Undo the zigzag mapping: the low bit is the sign.
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// Reads an unsigned varint that must not exceed `maximum`.
    ///
    /// - Parameters:
    ///   - field: The field's name for the error message.
    ///   - maximum: The largest value allowed.
    /// - Returns: The integer.
    /// - Throws: As ``readVarUInt()``, and ``FrameError/valueOutOfRange(field:value:maximum:)``.
    public mutating func readVarUInt(field: String, maximum: UInt64) throws(FrameError) -> UInt64 {
        let value = try readVarUInt()
        if value > maximum { throw .valueOutOfRange(field: field, value: value, maximum: maximum) }
        return value
    }

    /// Reads an unsigned varint that must fit in 32 bits.
    ///
    /// - Parameter field: The field's name for the error message.
    /// - Returns: The integer.
    /// - Throws: As ``readVarUInt()``, and ``FrameError/valueOutOfRange(field:value:maximum:)``.
    public mutating func readVarUInt32(field: String) throws(FrameError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readVarUInt(field: field, maximum: UInt64(UInt32.max)))
    }

    /// Reads `count` raw bytes.
    ///
    /// - Parameter count: The number of bytes.
    /// - Returns: The bytes.
    /// - Throws: ``FrameError/truncated(offset:needed:)`` when fewer than `count` are left.
    public mutating func readBytes(count: Int) throws(FrameError) -> [UInt8] {
        try require(count)
        defer { offset += count }
        return Array(buffer[offset..<(offset + count)])
    }

    /// Reads every byte left.
    ///
    /// - Returns: The bytes from the current offset to the end.
    public mutating func readRemainingBytes() -> [UInt8] {
        defer { offset = end }
        return Array(buffer[offset..<end])
    }

    /// Reads a byte string (varint length, then bytes), refusing a length over `limit` before
    /// allocating anything.
    ///
    /// - Parameters:
    ///   - field: The field's name for the error message.
    ///   - limit: The most bytes allowed.
    /// - Returns: The bytes.
    /// - Throws: As ``readVarUInt()``, ``FrameError/lengthExceeded(field:length:limit:)``, and
    ///   ``FrameError/truncated(offset:needed:)`` when the declared bytes are not all there.
    public mutating func readLengthPrefixedBytes(field: String, limit: Int) throws(FrameError) -> [UInt8] {
        let length = try readVarUInt()
        if length > UInt64(limit) { throw .lengthExceeded(field: field, length: length, limit: limit) }
        return try readBytes(count: Int(length))
    }

    /// Reads a text (varint UTF-8 length, then UTF-8 bytes), refusing a length over `limit`.
    ///
    /// - Parameters:
    ///   - field: The field's name for the error message.
    ///   - limit: The most UTF-8 bytes allowed.
    /// - Returns: The text.
    /// - Throws: As ``readLengthPrefixedBytes(field:limit:)``, and ``FrameError/invalidUTF8(field:)``.
    public mutating func readString(field: String, limit: Int) throws(FrameError) -> String {
        let bytes = try readLengthPrefixedBytes(field: field, limit: limit)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8(field: field) }
        return text
    }
}
