/// Appends byte-level integers, varints and byte strings to a growing buffer.
///
/// The byte-level half of `Protocol/PROTOCOL.md` section 2: fixed-width integers are big-endian
/// (network byte order); varints are unsigned LEB128 (seven bits per byte, least significant
/// group first, high bit set on every byte but the last), always in their shortest form;
/// signed varints are zigzag-mapped first. A byte string is a varint length and the bytes.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer.
    ///
    /// - Parameter capacity: Bytes to reserve up front.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written so far.
    public var count: Int { bytes.count }

    /// Appends one byte.
    ///
    /// - Parameter value: The byte.
    public mutating func writeUInt8(_ value: UInt8) {
        bytes.append(value)
    }

    /// Appends a 16-bit integer, big-endian.
    ///
    /// - Parameter value: The integer.
    public mutating func writeUInt16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends a 32-bit integer, big-endian.
    ///
    /// - Parameter value: The integer.
    public mutating func writeUInt32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    /// Appends a 64-bit integer, big-endian.
    ///
    /// - Parameter value: The integer.
    public mutating func writeUInt64(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// Appends an unsigned varint (LEB128) in its shortest form: 1 byte for 0...127, up to 10.
    ///
    /// - Parameter value: The integer.
    public mutating func writeVarUInt(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends a signed varint: the zigzag mapping of `value` (0, -1, 1, -2… become 0, 1, 2, 3…)
    /// written as an unsigned varint.
    ///
    /// - Parameter value: The integer.
    public mutating func writeVarInt(_ value: Int64) {
        writeVarUInt(ByteWriter.zigzag(value))
    }

    /// Appends raw bytes with no length prefix.
    ///
    /// - Parameter value: The bytes.
    public mutating func writeBytes(_ value: some Collection<UInt8>) {
        bytes.append(contentsOf: value)
    }

    /// Appends a byte string: its length as a varint, then its bytes.
    ///
    /// - Parameter value: The bytes.
    public mutating func writeLengthPrefixedBytes(_ value: some Collection<UInt8>) {
        writeVarUInt(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a text: its UTF-8 length as a varint, then its UTF-8 bytes.
    ///
    /// - Parameter value: The text.
    public mutating func writeString(_ value: String) {
        writeLengthPrefixedBytes(value.utf8)
    }

    /// Maps a signed integer to an unsigned one so that small magnitudes stay small.
    ///
    /// - Parameter value: The signed integer.
    /// - Returns: `2 * value` for `value >= 0`, `-2 * value - 1` otherwise.
    @inlinable
    static func zigzag(_ value: Int64) -> UInt64 {
        // The arithmetic shift copies the sign bit into every bit; the XOR is the mapping.
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}
