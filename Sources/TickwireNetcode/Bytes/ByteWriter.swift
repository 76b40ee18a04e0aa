/// Appends little-endian integers and raw bytes to a `[UInt8]`, as netcode.io serializes everything.
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ value: UInt8) { bytes.append(value) }

    mutating func write(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func write(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func write(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func write<Bytes: Sequence>(bytes other: Bytes) where Bytes.Element == UInt8 { bytes.append(contentsOf: other) }

    /// Pads with zero bytes up to `size` (never shrinks).
    mutating func pad(to size: Int) {
        if bytes.count < size { bytes.append(contentsOf: repeatElement(0, count: size - bytes.count)) }
    }
}
