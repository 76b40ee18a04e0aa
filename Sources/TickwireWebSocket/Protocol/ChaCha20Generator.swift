/// A ChaCha20 keystream (RFC 8439 section 2.3) used as a fast cryptographically secure
/// random number generator for masking keys.
///
/// RFC 6455 section 5.3 wants masking keys that the application cannot predict, from a
/// strong source of entropy. `SystemRandomNumberGenerator` is one, but on Linux every draw
/// is a `getrandom` system call, which costs more than framing a small message. This
/// generator is keyed with 256 bits and a 96-bit nonce from `SystemRandomNumberGenerator`,
/// yields 16 masking keys per block, and rekeys from the system every 65 536 blocks. It is
/// the same construction the kernel and BSD `arc4random` use for their own output.
struct ChaCha20Generator: RandomNumberGenerator, Sendable {
    /// Key (8 words), block counter, nonce (3 words): the RFC 8439 input state minus constants.
    var key: [UInt32]
    var counter: UInt32
    var nonce: [UInt32]
    /// The current block's output words and how many have been handed out.
    var output: [UInt32] = Array(repeating: 0, count: 16)
    var used = 16
    var blocksUntilRekey: Int
    /// Whether to rekey from `SystemRandomNumberGenerator` (off for fixed test vectors).
    let rekeysFromSystem: Bool

    static let constants: (UInt32, UInt32, UInt32, UInt32) = (0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574)
    static let blocksPerKey = 65_536

    /// A generator keyed from `SystemRandomNumberGenerator`.
    init() {
        key = []
        nonce = []
        counter = 0
        blocksUntilRekey = 0
        rekeysFromSystem = true
        rekey()
    }

    /// A generator with a fixed key, nonce and counter, for the RFC 8439 test vectors.
    init(key: [UInt32], nonce: [UInt32], counter: UInt32) {
        precondition(key.count == 8 && nonce.count == 3, "ChaCha20 takes 8 key words and 3 nonce words")
        self.key = key
        self.nonce = nonce
        self.counter = counter
        blocksUntilRekey = .max
        rekeysFromSystem = false
    }

    mutating func rekey() {
        var system = SystemRandomNumberGenerator()
        key = (0..<8).map { _ in UInt32(truncatingIfNeeded: system.next()) }
        nonce = (0..<3).map { _ in UInt32(truncatingIfNeeded: system.next()) }
        counter = 0
        blocksUntilRekey = Self.blocksPerKey
    }

    /// The next 32 random bits.
    @inline(__always)
    mutating func next32() -> UInt32 {
        if used == 16 { refill() }
        let value = output[used]
        used &+= 1
        return value
    }

    mutating func next() -> UInt64 {
        UInt64(next32()) << 32 | UInt64(next32())
    }

    /// Computes the next block into `output` (RFC 8439 section 2.3).
    mutating func refill() {
        if rekeysFromSystem && blocksUntilRekey == 0 { rekey() }
        blocksUntilRekey -= 1
        let (c0, c1, c2, c3) = Self.constants
        let k = key
        let n = nonce
        var x0 = c0, x1 = c1, x2 = c2, x3 = c3
        var x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3], x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7]
        var x12 = counter, x13 = n[0], x14 = n[1], x15 = n[2]
        for _ in 0..<10 {
            Self.quarterRound(&x0, &x4, &x8, &x12)
            Self.quarterRound(&x1, &x5, &x9, &x13)
            Self.quarterRound(&x2, &x6, &x10, &x14)
            Self.quarterRound(&x3, &x7, &x11, &x15)
            Self.quarterRound(&x0, &x5, &x10, &x15)
            Self.quarterRound(&x1, &x6, &x11, &x12)
            Self.quarterRound(&x2, &x7, &x8, &x13)
            Self.quarterRound(&x3, &x4, &x9, &x14)
        }
        // All additions wrap modulo 2^32, as the algorithm specifies.
        output.withUnsafeMutableBufferPointer { out in
            out[0] = x0 &+ c0; out[1] = x1 &+ c1; out[2] = x2 &+ c2; out[3] = x3 &+ c3
            out[4] = x4 &+ k[0]; out[5] = x5 &+ k[1]; out[6] = x6 &+ k[2]; out[7] = x7 &+ k[3]
            out[8] = x8 &+ k[4]; out[9] = x9 &+ k[5]; out[10] = x10 &+ k[6]; out[11] = x11 &+ k[7]
            out[12] = x12 &+ counter; out[13] = x13 &+ n[0]; out[14] = x14 &+ n[1]; out[15] = x15 &+ n[2]
        }
        counter &+= 1
        used = 0
    }

    /// The ChaCha quarter round (RFC 8439 section 2.1); additions wrap by definition.
    @inline(__always)
    static func quarterRound(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32) {
        a = a &+ b; d ^= a; d = d << 16 | d >> 16
        c = c &+ d; b ^= c; b = b << 12 | b >> 20
        a = a &+ b; d ^= a; d = d << 8 | d >> 24
        c = c &+ d; b ^= c; b = b << 7 | b >> 25
    }
}

/// The default masking-key source of a client ``WebSocketProtocolMachine``: one
/// system-keyed ``ChaCha20Generator`` per connection.
///
/// Not thread-safe: it belongs to one machine.
final class MaskingKeyStream {
    var generator = ChaCha20Generator()

    func next() -> WebSocketMaskingKey {
        WebSocketMaskingKey(word: generator.next32())
    }
}

@available(*, unavailable, message: "Holds generator state for one connection; use it from one thread at a time.")
extension MaskingKeyStream: Sendable {}
