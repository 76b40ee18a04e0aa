/// Reads little-endian integers and raw bytes from a `[UInt8]`, every read bounds-checked.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int
    /// What is being read, for error messages.
    private let what: String

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        offset = 0
        end = bytes.count
        self.what = what
    }

    var available: Int { end - offset }

    private mutating func take(_ count: Int) throws(NetcodeError) -> Int {
        guard count <= available else { throw .truncated(what, needed: offset + count, available: end) }
        let start = offset
        offset += count
        return start
    }

    mutating func readUInt8() throws(NetcodeError) -> UInt8 { bytes[try take(1)] }

    mutating func readUInt16() throws(NetcodeError) -> UInt16 {
        let start = try take(2)
        return UInt16(bytes[start]) | UInt16(bytes[start + 1]) << 8
    }

    mutating func readUInt32() throws(NetcodeError) -> UInt32 {
        let start = try take(4)
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[start + index]) << UInt32(8 * index) }
        return value
    }

    mutating func readUInt64() throws(NetcodeError) -> UInt64 {
        let start = try take(8)
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[start + index]) << UInt64(8 * index) }
        return value
    }

    mutating func readBytes(_ count: Int) throws(NetcodeError) -> [UInt8] {
        let start = try take(count)
        return Array(bytes[start..<start + count])
    }
}
