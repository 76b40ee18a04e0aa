/// Whether 16-bit sequence `a` is newer than `b`, with wraparound: `a` is newer when it is ahead
/// of `b` by less than half the sequence space (1 is newer than 65 535; 65 535 is newer than 32 768).
///
/// - Parameters:
///   - a: A sequence number.
///   - b: Another.
/// - Returns: `true` when `a` follows `b`.
@inlinable
public func sequenceGreaterThan(_ a: UInt16, _ b: UInt16) -> Bool {
    // Wrapping subtraction measures the distance modulo 2^16 by design.
    let distance = a &- b
    return distance != 0 && distance < 32_768
}

/// Whether 16-bit sequence `a` is older than `b`, with wraparound (``sequenceGreaterThan(_:_:)`` reversed).
///
/// - Parameters:
///   - a: A sequence number.
///   - b: Another.
/// - Returns: `true` when `a` precedes `b`.
@inlinable
public func sequenceLessThan(_ a: UInt16, _ b: UInt16) -> Bool { sequenceGreaterThan(b, a) }
