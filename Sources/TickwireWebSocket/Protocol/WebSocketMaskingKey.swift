internal import CWebSocketMask

/// The four-byte key a client XORs over every frame payload it sends (RFC 6455 section 5.3).
public struct WebSocketMaskingKey: Hashable, Sendable, CustomStringConvertible {
    /// The key's four bytes in wire order.
    public let bytes: (UInt8, UInt8, UInt8, UInt8)

    /// The key as a little-endian word: byte `i` of the key in bits `8i ..< 8i+8`.
    @usableFromInline
    let word: UInt32

    /// Creates a key from its four bytes in wire order.
    ///
    /// - Parameters:
    ///   - b0: The first key byte, applied to payload bytes 0, 4, 8, …
    ///   - b1: The second key byte.
    ///   - b2: The third key byte.
    ///   - b3: The fourth key byte.
    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        bytes = (b0, b1, b2, b3)
        word = UInt32(b0) | UInt32(b1) << 8 | UInt32(b2) << 16 | UInt32(b3) << 24
    }

    /// Creates a key from a little-endian word (byte 0 in the low bits).
    ///
    /// - Parameter word: The key, first wire byte in the least significant eight bits.
    @inlinable
    public init(word: UInt32) {
        self.init(
            UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
            UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24))
    }

    /// A fresh key from `SystemRandomNumberGenerator` (the kernel's CSPRNG), as RFC 6455 requires.
    ///
    /// - Returns: An unpredictable key.
    public static func random() -> WebSocketMaskingKey {
        var generator = SystemRandomNumberGenerator()
        return WebSocketMaskingKey(word: generator.next())
    }

    /// A key drawn from `generator`; for tests that need repeatable bytes.
    ///
    /// - Parameter generator: The source of randomness.
    /// - Returns: A key built from the generator's next value.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> WebSocketMaskingKey {
        WebSocketMaskingKey(word: generator.next())
    }

    /// Whether two keys have the same four bytes.
    public static func == (lhs: WebSocketMaskingKey, rhs: WebSocketMaskingKey) -> Bool { lhs.word == rhs.word }

    /// Hashes the essential state.
    public func hash(into hasher: inout Hasher) { hasher.combine(word) }

    /// A plain-words description for logs and error messages.
    public var description: String {
        let hex = [bytes.0, bytes.1, bytes.2, bytes.3].map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        return "mask " + hex.joined()
    }

    /// XORs the key over `buffer` in place: 32 bytes at a time with AVX2 (x86-64 CPUs that have
    /// it, chosen at run time), else sixteen.
    ///
    /// Masking and unmasking are the same operation. `phase` says where in the payload
    /// `buffer` starts, modulo 4, so that a payload can be unmasked in pieces.
    ///
    /// - Parameters:
    ///   - buffer: The bytes to mask or unmask.
    ///   - phase: The offset of `buffer`'s first byte within the payload; only `phase % 4` matters.
    @inlinable @inline(__always)
    public func apply(to buffer: UnsafeMutableRawBufferPointer, phase: Int = 0) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        xor(from: UnsafeRawPointer(base), to: base, count: buffer.count, phase: phase)
    }

    /// Copies `source` into the start of `destination`, XORing the key over it on the way: one
    /// pass where a copy followed by ``apply(to:phase:)`` would take two.
    ///
    /// - Parameters:
    ///   - source: The bytes to mask or unmask.
    ///   - destination: Receives `source.count` bytes; must be at least that long.
    ///   - phase: The offset of `source`'s first byte within the payload; only `phase % 4` matters.
    @inlinable @inline(__always)
    public func apply(from source: UnsafeRawBufferPointer, to destination: UnsafeMutableRawBufferPointer, phase: Int = 0) {
        precondition(destination.count >= source.count, "the destination must hold the whole source")
        guard let from = source.baseAddress, let to = destination.baseAddress, source.count > 0 else { return }
        xor(from: from, to: to, count: source.count, phase: phase)
    }

    /// The key as a little-endian word rotated so that its low byte applies at payload offset `phase`.
    @inlinable @inline(__always)
    func word(atPhase phase: Int) -> UInt32 {
        let shift = UInt32((phase & 3) * 8)
        return shift == 0 ? word : (word >> shift) | (word << (32 - shift))
    }

    /// A rotated key word (see ``word(atPhase:)``) repeated over sixteen lanes.
    @inlinable
    static func pattern(_ rotated: UInt32) -> SIMD16<UInt8> {
        // One broadcast of the word; `littleEndian` puts its low byte first in memory anywhere.
        unsafeBitCast(SIMD4<UInt32>(repeating: rotated.littleEndian), to: SIMD16<UInt8>.self)
    }

    /// Payloads at least this long are masked with the widest vectors the CPU has (AVX2 on
    /// x86-64) before the portable loop takes the rest: below it, the call costs more than it saves.
    @usableFromInline
    static var wideMaskingBytes: Int { 256 }

    /// Whether this CPU masks with vectors wider than the portable sixteen-byte loop's.
    static var hasWideMasking: Bool { tickwire_mask_wide_is_available() != 0 }

    /// Masks all `count` bytes with the CPU's widest vectors (see `tickwire_mask_wide`).
    ///
    /// - Returns: `count`, or 0 without wide vectors (the caller then masks them all).
    @usableFromInline
    static func xorWide(from: UnsafeRawPointer, to: UnsafeMutableRawPointer, count: Int, word: UInt32) -> Int {
        tickwire_mask_wide(from, to, count, word)
    }

    /// The XOR loop behind both `apply` forms; `from` and `to` may be the same address.
    ///
    /// Always inlined: for a small payload the call and the key pattern's setup cost as much
    /// as the loop (perf, 64-byte messages).
    @inlinable @inline(__always)
    func xor(from: UnsafeRawPointer, to: UnsafeMutableRawPointer, count: Int, phase: Int) {
        let rotated = word(atPhase: phase)
        // The wide path masks all of it or none of it.
        var offset = count >= Self.wideMaskingBytes ? Self.xorWide(from: from, to: to, count: count, word: rotated) : 0
        let lanes = Self.pattern(rotated)
        while count &- offset >= 32 {
            let first = from.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
            let second = from.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD16<UInt8>.self)
            to.storeBytes(of: first ^ lanes, toByteOffset: offset, as: SIMD16<UInt8>.self)
            to.storeBytes(of: second ^ lanes, toByteOffset: offset &+ 16, as: SIMD16<UInt8>.self)
            offset &+= 32
        }
        if count &- offset >= 16 {
            let piece = from.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
            to.storeBytes(of: piece ^ lanes, toByteOffset: offset, as: SIMD16<UInt8>.self)
            offset &+= 16
        }
        // Fewer than 16 bytes are left; offset is a multiple of 16, so lane i still matches byte i.
        var lane = 0
        while offset < count {
            let byte = from.load(fromByteOffset: offset, as: UInt8.self)
            to.storeBytes(of: byte ^ lanes[lane], toByteOffset: offset, as: UInt8.self)
            offset &+= 1
            lane &+= 1
        }
    }
}
